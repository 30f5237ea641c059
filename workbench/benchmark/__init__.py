"""`workbench benchmark`: named experiment suites, planned, checked and run.

configs reads a suite (the TOML files in suites/, or any path) and checks it whole before
anything runs; plan sizes the checked runs and asks before a large one; privacy adds the
reference runs and the attacks a suite names. Each run goes through workbench.pipeline.
"""
