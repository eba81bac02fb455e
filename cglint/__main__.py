import sys

from cglint.cli import main

sys.exit(main())
