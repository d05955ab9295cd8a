from edge_origin.cli import entry

entry()
