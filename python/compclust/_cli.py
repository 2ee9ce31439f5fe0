"""The ``compclust`` console script: the Rust command line, compiled into the extension module.

``pip install .`` puts it on the PATH; it behaves as the ``compclust`` binary that
``cargo install --path crates/compclust-cli`` installs (same options, output and exit status).
"""

import signal
import sys

from ._core import cli_main


def main() -> None:
    """Run ``compclust`` with this process's arguments and exit with its status."""
    # Ctrl-C stops the command as it stops the binary (Python's handler would only raise
    # KeyboardInterrupt once the command returned).
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.exit(cli_main(["compclust", *sys.argv[1:]]))


if __name__ == "__main__":
    main()
