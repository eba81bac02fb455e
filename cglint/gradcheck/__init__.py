"""`cglint gradcheck`: prove custom gradients numerically under real TensorFlow 1.8.

spec.py and settings.py read what to feed each function, discover.py finds the functions
with the linter's facts, driver.py runs inside the TF 1.8 interpreters (Python 2.7 and
3.6), verdicts.py runs it through the oracle and judges, command.py is the command.
Unlike the linter, this executes the user's code (in the oracle's sandbox).
"""
