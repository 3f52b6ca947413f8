import sys

from openhip.cli import main

sys.exit(main())
