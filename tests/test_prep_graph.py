"""The explicit graph runner: edges checked at build time, routes limited to wired targets."""

from __future__ import annotations

import pytest

from interviewsim.prep.graph import END, Graph, GraphError, Route
from interviewsim.prep.pipeline import build_match_graph, build_prep_graph


def _append(name: str):
    def node(state: list[str]) -> None:
        state.append(name)

    return node


def test_a_node_without_an_edge_is_rejected_when_the_graph_is_built() -> None:
    with pytest.raises(GraphError, match="node 'b' has no outgoing edge"):
        Graph("g", "a", {"a": _append("a"), "b": _append("b")}, {"a": "b"})


def test_an_edge_to_an_unknown_node_is_rejected() -> None:
    with pytest.raises(GraphError, match="unknown 'c'"):
        Graph("g", "a", {"a": _append("a")}, {"a": Route(lambda s: "x", {"x": "c"})})


def test_an_unreachable_node_is_rejected() -> None:
    with pytest.raises(GraphError, match="node 'b' is unreachable"):
        Graph("g", "a", {"a": _append("a"), "b": _append("b")}, {"a": END, "b": END})


def test_a_route_cannot_choose_a_target_that_was_not_wired() -> None:
    graph = Graph("g", "a", {"a": _append("a"), "b": _append("b")},
                  {"a": Route(lambda s: "elsewhere", {"next": "b"}), "b": END})
    with pytest.raises(GraphError, match="chose 'elsewhere'; wired: next"):
        graph.execute([]).advance()


def test_interrupt_pauses_before_the_node_and_resume_runs_it_first() -> None:
    graph = Graph("g", "a", {"a": _append("a"), "ask": _append("ask"), "z": _append("z")},
                  {"a": "ask", "ask": Route(lambda s: "again" if s.count("ask") < 2 else "done",
                                            {"again": "ask", "done": "z"}), "z": END},
                  interrupts=frozenset({"ask"}))
    state: list[str] = []
    execution = graph.execute(state)
    assert execution.advance() == "ask" and state == ["a"]
    assert execution.advance() == "ask" and state == ["a", "ask"]
    assert execution.advance() is None and execution.finished
    assert execution.trajectory == [["a"], ["ask"], ["ask", "z"]]
    assert execution.interrupts == 2


def test_a_finished_execution_cannot_be_advanced() -> None:
    execution = Graph("g", "a", {"a": _append("a")}, {"a": END}).execute([])
    execution.advance()
    with pytest.raises(GraphError, match="already finished"):
        execution.advance()


def test_prep_graphs_are_well_formed_and_only_ask_interrupts() -> None:
    prep = build_prep_graph(client=None)  # type: ignore[arg-type]
    assert prep.interrupts == frozenset({"ask"})
    assert {t for n in prep.nodes for t in prep.targets(n)} >= {"assemble", "error_report"}
    match = build_match_graph(client=None)
    assert match.interrupts == frozenset()
