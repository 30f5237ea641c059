"""What the commands that read the store print, as lines of text: `workbench runs` (runs.py)
and `workbench show` (show.py). Library functions, so that tests reach them without the CLI;
the terminal-safe pieces they are built from are workbench.infra.terminal."""
