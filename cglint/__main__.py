"""`python -m cglint` and the `cglint` command. Loading the command line takes its own
~150 ms of imports: a Ctrl-C landing in one of importlib's callbacks there would print
"Exception ignored ... KeyboardInterrupt", so stops are kept (cglint.interrupts) from
before the first of them."""
import sys


def main():
    try:
        from cglint import interrupts  # (light: signal, contextlib and sys)

        with interrupts.keeping_stops():
            try:
                from cglint.cli import console_main
            except Exception as error:
                interrupts.raise_stop_behind(error)
                raise
            interrupts.raise_pending()
    except KeyboardInterrupt:  # Ctrl-C while starting up: stop as quietly as a running check
        return 130
    return console_main()


if __name__ == "__main__":
    sys.exit(main())
