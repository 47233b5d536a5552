"""Storage: SQLAlchemy models, the database handle and migrations."""
