"""Which TensorFlow (and standalone Keras) calls create trainable variables (CG101, CG102).

These are the creators TF 1.8 users reach for. Layer *classes* create their variables when
the instance is first called, so an instantiation counts too.
"""
import ast

# Exact qualified names of functions that return a new variable.
VARIABLE_FUNCTIONS = frozenset((
    "tensorflow.Variable",
    "tensorflow.get_variable",
    "tensorflow.get_local_variable",
    "tensorflow.contrib.eager.Variable",
    "tensorflow.contrib.framework.variable",
    "tensorflow.contrib.framework.model_variable",
    "tensorflow.contrib.slim.variable",
    "tensorflow.contrib.slim.model_variable",
    "tensorflow.compat.v1.Variable",
    "tensorflow.compat.v1.get_variable",
    "tensorflow.python.ops.resource_variable_ops.ResourceVariable",
    # the function tf.Variable's constructor calls, which 1.8 exports under no public name
    "tensorflow.python.ops.variable_scope.variable",
    "tensorflow.keras.backend.variable",
    # standalone Keras on the TF backend (most Keras code of TF 1.8's time): its
    # variables are TF variables
    "keras.backend.variable",
))
# Objects that make their variables when first called: a template (`tf.make_template`)
# and a whole Keras model.
VARIABLE_OWNERS = frozenset((
    "tensorflow.make_template",
    "tensorflow.keras.Sequential",
    "tensorflow.keras.models.Sequential",
    "tensorflow.contrib.keras.models.Sequential",
    "tensorflow.compat.v1.make_template",
    "keras.Sequential",
    "keras.models.Sequential",
))
# Modules whose functions (and layer classes) build layers with weights.
LAYER_MODULES = (
    "tensorflow.layers.",
    "tensorflow.keras.layers.",
    "tensorflow.contrib.layers.",
    "tensorflow.contrib.slim.",
    "tensorflow.contrib.keras.layers.",
    "tensorflow.compat.v1.layers.",
    "keras.layers.",
    # RNN cells: they make their weights when an RNN first runs them
    "tensorflow.nn.rnn_cell.",
    "tensorflow.contrib.rnn.",
)
# Layers with weights, by the last part of their name (function and class spellings).
WEIGHTED_LAYERS = frozenset((
    "dense", "Dense", "fully_connected", "linear",
    "conv1d", "conv2d", "conv3d", "Conv1D", "Conv2D", "Conv3D", "convolution",
    "convolution1d", "convolution2d", "convolution3d", "Convolution1D", "Convolution2D",
    "Convolution3D", "conv2d_transpose", "conv3d_transpose", "Conv2DTranspose",
    "Conv3DTranspose", "convolution2d_transpose", "separable_conv1d", "separable_conv2d",
    "SeparableConv1D", "SeparableConv2D", "separable_convolution2d", "DepthwiseConv2D",
    "batch_normalization", "BatchNormalization", "batch_norm", "layer_norm",
    "embedding", "Embedding", "embed_sequence", "LSTM", "GRU", "SimpleRNN", "LSTMCell",
    "GRUCell", "SimpleRNNCell", "ConvLSTM2D", "PReLU", "LocallyConnected1D",
    "LocallyConnected2D", "bias_add",
    # tf.contrib.layers' other layers with weights (`instance_norm`: a beta; `group_norm`:
    # a gamma and a beta; `spatial_softmax`: a trainable temperature)
    "instance_norm", "group_norm", "conv2d_in_plane", "convolution2d_in_plane",
    "legacy_fully_connected", "bow_encoder", "spatial_softmax",
    "BasicRNNCell", "BasicLSTMCell", "MultiRNNCell", "LSTMBlockCell", "GRUBlockCell",
    "LayerNormBasicLSTMCell", "NASCell", "UGRNNCell", "IntersectionRNNCell", "GLSTMCell",
    "ConvLSTMCell", "Conv2DLSTMCell", "DropoutWrapper", "ResidualWrapper",
    "AttentionCellWrapper",
))


def creates_variables(qualname):
    if not qualname:
        return False
    if qualname in VARIABLE_FUNCTIONS or qualname in VARIABLE_OWNERS:
        return True
    return qualname.startswith(LAYER_MODULES) and qualname.rsplit(".", 1)[1] in WEIGHTED_LAYERS


def always_makes_a_new_variable(qualname):
    """The classes (`tf.Variable`, Keras's `Dense`) make a new variable each time; the
    functions (`get_variable`, `tf.layers.dense`) may reuse one in a reusing scope."""
    return qualname.rsplit(".", 1)[-1][:1].isupper()


def creates_trained_variables(call, qualname):
    """creates_variables, less the calls that visibly make a variable no optimizer trains:
    `trainable=False` or a local variable (a closure read of those needs no gradient)."""
    if not creates_variables(qualname) or qualname == "tensorflow.get_local_variable":
        return False
    return not any(k.arg == "trainable" and isinstance(k.value, ast.Constant)
                   and k.value.value is False for k in call.keywords)
