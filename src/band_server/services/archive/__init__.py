"""Moving a deployment out and in: the admin's directory export and the resumable archive import."""
