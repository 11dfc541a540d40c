"""config layer, at the bottom: what every layer reads about settings, importing nothing else of miniroom.

`problems` (a problem phrased `file:line: key: message`, pydantic's errors in people's words, `Validator`),
`errors` (`UserError`, the base of every error a person can fix), `settings_file` (reading a file without
trusting it), `bounded_yaml` and `yaml_source` (YAML with the line of every key), `settings_model` (the base
of every `.miniroom/*.yml` shape), `config_yaml` (the schema of config.yaml), `paths` (where config.yaml and
the data folder are), `expand` (`$VAR` in settings values), `json_files` (small JSON state files, replaced
atomically), `faces` (a layer's public face that loads each name with its module at first use). Import from
the module that owns a name; this package re-exports nothing.
"""
