"""Room tasks and a room's board (its goal), with their shared wire views and cursors."""
