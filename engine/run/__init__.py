"""Running fights: the runner, the report statistics, the dice audit, the JSON Schemas."""
