"""Small programs the command-line tests share."""

# One CG103 finding at 5:5: one input, two gradients.
BAD = (
    "import tensorflow as tf\n"
    "\n"
    "@tf.custom_gradient\n"
    "def f(x):\n"
    "    return x, lambda dy: (dy, dy)\n"
)
GOOD = BAD.replace("(dy, dy)", "dy")
