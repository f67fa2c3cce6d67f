"""The rules on a fight state: attacks, attacks of opportunity, movement actions, tumbling,
stealth, skills, life, off-turn actions, weapons, the table of action kinds and the
action budget."""
