import sys

try:
    from cglint.cli import console_main
except KeyboardInterrupt:  # Ctrl-C while starting up: stop as quietly as a running check
    sys.exit(130)

sys.exit(console_main())
