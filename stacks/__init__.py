"""The reference stacks of this repository: wiring only."""
