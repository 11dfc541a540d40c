"""The environment variables that hold miniroom's own secrets, named once: the lock of the server's API and
the passwords of the Matrix accounts. A tool's command never gets them (tools/environment.py)."""

API_TOKEN_VARIABLE = "MINIROOM_API_TOKEN"
API_KEY_VARIABLE = "MINIROOM_API_KEY"  # the same lock under the name worker deployments use
MATRIX_PASSWORD_VARIABLE = "MINIROOM_MATRIX_PASSWORD"  # every agent's, unless it has its own:
MATRIX_PASSWORD_PREFIX = f"{MATRIX_PASSWORD_VARIABLE}_"  # MINIROOM_MATRIX_PASSWORD_<AGENT>
