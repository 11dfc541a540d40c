"""One module per fetch service type; each has `create(settings, where, type_name)`."""
