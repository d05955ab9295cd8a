import sys

from edge_origin.cli import main

sys.exit(main())
