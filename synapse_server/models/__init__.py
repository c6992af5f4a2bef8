"""Model providers behind one small protocol, chosen by a spec string (DESIGN §5).

``resolve_model(model_spec_from(config.model, os.environ, args.model))`` is the
whole story for a caller; everything else here is for providers and tests.
"""

from synapse_server.models.base import (
    DEFAULT_TIMEOUT_S,
    Completion,
    Model,
    ModelIdentity,
    ModelOptions,
    Prompt,
    Usage,
)
from synapse_server.models.errors import (
    ModelBadResponse,
    ModelCommandFailed,
    ModelError,
    ModelExhausted,
    ModelMisconfigured,
    ModelSpecError,
    ModelTimeout,
    ModelTransportError,
)
from synapse_server.models.spec import (
    PROVIDERS,
    ModelSpec,
    SpecOrigin,
    model_spec_from,
    model_spec_origin,
    parse_model_spec,
    resolve_model,
)

__all__ = [
    "DEFAULT_TIMEOUT_S",
    "PROVIDERS",
    "Completion",
    "Model",
    "ModelBadResponse",
    "ModelCommandFailed",
    "ModelError",
    "ModelExhausted",
    "ModelIdentity",
    "ModelMisconfigured",
    "ModelOptions",
    "ModelSpec",
    "ModelSpecError",
    "ModelTimeout",
    "ModelTransportError",
    "Prompt",
    "SpecOrigin",
    "Usage",
    "model_spec_from",
    "model_spec_origin",
    "parse_model_spec",
    "resolve_model",
]
