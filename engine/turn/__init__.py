"""The turn loop: initiative, rounds, turns, dispatch through the table of actions."""
