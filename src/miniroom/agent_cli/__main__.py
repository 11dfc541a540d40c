import sys

from miniroom.agent_cli.main import main

sys.exit(main())
