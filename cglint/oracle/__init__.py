"""The oracle: runs fixtures under real TensorFlow 1.8 and checks their `# run:` headers.

envs.py finds or builds the TF 1.8 interpreters, harness.py runs inside them,
runner.py drives the harnesses from the host, confirm.py is `cglint confirm`.
"""
