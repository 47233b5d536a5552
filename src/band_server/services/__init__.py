"""Domain services: they know the database and the bus, never HTTP or sockets."""
