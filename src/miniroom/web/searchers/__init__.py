"""One module per search service type; each has `create(settings, where, type_name)`."""
