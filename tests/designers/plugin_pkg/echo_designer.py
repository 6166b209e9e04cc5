"""An outside designer that does not subclass anything from the project: it only follows the
protocol (name, description, propose) and builds its Proposal itself."""

from __future__ import annotations

from designers import DesignContext, Proposal


class EchoDesigner:
    name = "echo"
    description = "Plug-in test designer: proposes the current configuration unchanged."

    def __init__(self, **options: object) -> None:
        self.options = options

    def propose(self, ctx: DesignContext) -> Proposal:
        return Proposal(designer=self.name, config=ctx.config, rationale="echo")
