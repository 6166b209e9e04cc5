"""An outside designer that does not subclass anything from the project: it only follows the
protocol (name, description, propose), declares its options as a pydantic model, and builds its
Proposal itself."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from designers import DesignContext, Proposal


class EchoOptions(BaseModel):
    """The one option of the echo designer (it changes nothing but is checked like any)."""

    model_config = ConfigDict(extra="forbid")

    flavour: str = "plain"


class EchoDesigner:
    name = "echo"
    description = "Plug-in test designer: proposes the current configuration unchanged."
    options_model = EchoOptions

    def __init__(self, flavour: str = "plain") -> None:
        self.flavour = flavour

    def propose(self, ctx: DesignContext) -> Proposal:
        return Proposal(designer=self.name, config=ctx.config, rationale="echo")
