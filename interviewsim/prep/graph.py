"""A small explicit state graph: named nodes, edges fixed at build time, interrupts, a trace.

Why not LangGraph: the prep flow needs four things — fixed edges, routing on gate booleans,
pausing for a human answer, and a node-by-node trace to freeze in regression tests. This module
does exactly that in about 130 lines with no dependency; every edge is checked when the graph is
built, and a route can only pick among targets wired in advance. A model cannot add a node or
an edge; it can only produce data a node stores.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Generic, TypeVar

S = TypeVar("S")
END = "END"
MAX_STEPS = 10_000


@dataclass(frozen=True)
class Route(Generic[S]):
    """A conditional edge: ``decide`` (a pure function of the state) names one of ``branches``."""

    decide: Callable[[S], str]
    branches: Mapping[str, str]


Edge = str | Route[S]


class GraphError(RuntimeError):
    """The graph is malformed, or a route returned a branch that was never wired."""


class Graph(Generic[S]):
    """Nodes mutate the state; each node has exactly one outgoing edge or route."""

    def __init__(self, name: str, start: str, nodes: Mapping[str, Callable[[S], None]],
                 edges: Mapping[str, Edge[S]], interrupts: frozenset[str] = frozenset()):
        self.name = name
        self.start = start
        self.nodes = dict(nodes)
        self.edges = dict(edges)
        self.interrupts = interrupts
        self._check()

    def targets(self, node: str) -> list[str]:
        edge = self.edges[node]
        return [edge] if isinstance(edge, str) else list(edge.branches.values())

    def _check(self) -> None:
        problems: list[str] = []
        if self.start not in self.nodes:
            problems.append(f"start node {self.start!r} is not a node")
        problems += [f"node {n!r} has no outgoing edge" for n in self.nodes if n not in self.edges]
        problems += [f"edge from unknown node {n!r}" for n in self.edges if n not in self.nodes]
        problems += [f"interrupt {n!r} is not a node" for n in self.interrupts
                     if n not in self.nodes]
        for node in self.edges:
            problems += [f"edge {node!r} -> unknown {t!r}" for t in self.targets(node)
                         if t != END and t not in self.nodes]
        if not problems:
            reached, frontier = {self.start}, [self.start]
            while frontier:
                for target in self.targets(frontier.pop()):
                    if target != END and target not in reached:
                        reached.add(target)
                        frontier.append(target)
            problems += [f"node {n!r} is unreachable" for n in self.nodes if n not in reached]
        if problems:
            raise GraphError(f"graph {self.name!r}: " + "; ".join(problems))

    def next_node(self, node: str, state: S) -> str:
        edge = self.edges[node]
        if isinstance(edge, str):
            return edge
        branch = edge.decide(state)
        if branch not in edge.branches:
            raise GraphError(f"graph {self.name!r}: route from {node!r} chose {branch!r}; "
                             f"wired: {', '.join(edge.branches)}")
        return edge.branches[branch]

    def execute(self, state: S) -> Execution[S]:
        return Execution(self, state)


@dataclass
class Execution(Generic[S]):
    """One run of a graph over a state, advanced turn by turn.

    A turn runs nodes until the graph ends or reaches an interrupt node; the caller then puts
    the awaited input into the state and calls :meth:`advance` again, which starts the next
    turn *at* that node. ``trajectory`` holds every turn's node sequence.
    """

    graph: Graph[S]
    state: S
    trajectory: list[list[str]] = field(default_factory=list)
    pending: str | None = None
    finished: bool = False
    _next: str = ""

    def __post_init__(self) -> None:
        self._next = self.graph.start

    @property
    def interrupts(self) -> int:
        return max(0, len(self.trajectory) - 1) if self.finished else len(self.trajectory)

    def advance(self) -> str | None:
        """Run one turn; return the interrupt node it stopped before, or None when finished."""
        if self.finished:
            raise GraphError(f"graph {self.graph.name!r} already finished")
        turn: list[str] = []
        self.trajectory.append(turn)
        node = self._next
        for _ in range(MAX_STEPS):
            if node == END:
                self.finished, self.pending = True, None
                return None
            if node in self.graph.interrupts and turn:
                self._next = self.pending = node
                return node
            turn.append(node)
            self.graph.nodes[node](self.state)
            node = self.graph.next_node(node, self.state)
        raise GraphError(f"graph {self.graph.name!r} ran {MAX_STEPS} steps without ending")
