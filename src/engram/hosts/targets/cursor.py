"""Cursor: an always-applied `.mdc` rule and `.cursor/mcp.json`; globally, a local plugin."""

from engram.hosts.targets import Mcp, Scope, Target
from engram.hosts.texts import CURSOR_HEADER

PLUGIN_DIR = ".cursor/plugins/local/engram"

TARGET = Target(
    name="cursor",
    workspace=Scope(
        instructions=".cursor/rules/engram.mdc",
        header=CURSOR_HEADER,
        mcp=Mcp("json", (".cursor/mcp.json",)),
    ),
    global_=Scope(
        instructions=f"{PLUGIN_DIR}/rules/engram.mdc",
        header=CURSOR_HEADER,
        mcp=Mcp("cursor-plugin", (f"{PLUGIN_DIR}/mcp.json",)),
        extra_files=(f"{PLUGIN_DIR}/.cursor-plugin/plugin.json",),
    ),
)
