import sys

try:
    from cglint.cli import main
except KeyboardInterrupt:  # Ctrl-C while starting up: stop as quietly as a running check
    sys.exit(130)

sys.exit(main())
