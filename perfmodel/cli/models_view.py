"""Rendering ``perfmodel models``: the network models with their parameters, and every
application model with its constants (unit, meaning, value or how it is found), problem size
and the range where it holds; one model in full; or the same as JSON."""

from __future__ import annotations

from typing import Any

from rich.markup import escape
from rich.table import Table

from perfmodel.apps.model import AppModel, AppParam, Validity
from perfmodel.cli.tables import Tabular, console
from perfmodel.network import models as registry
from perfmodel.units import format_number

FREE = "fitted from --fit TIMINGS, or give with --set"
FITTING = ("A constant without a value is fitted to timings (predict --fit TIMINGS): the fit "
           "needs runs at two or more node counts and no fewer timings than free constants, "
           "and refuses constants the timings cannot tell apart (give one with --set "
           "NAME=VALUE). Any constant, valued or not, can be given with --set.")


def _value(q: AppParam) -> str:
    if q.value is None:
        return FREE + (f" (at least {format_number(q.lower)})" if q.lower else "")
    return f"{format_number(q.value)}{' ' + q.unit if q.unit else ''}"


def _range(valid: Validity | None) -> str:
    return valid.describe() if valid is not None else "no stated range"


def network_table() -> Table:
    t = Tabular(title="Network models (perfmodel calibrate --model NAME)")
    t.column("name", justify="left")
    for col, drop in (("formula", None), ("parameters", None), ("about", 1)):
        t.column(col, justify="left", prose=True, drop=drop)
    for spec in registry.MODELS.values():
        params = "\n".join(f"{p.name} [{p.unit}]: {p.description}" for p in spec.params)
        t.add_row(spec.name, escape(spec.formula), escape(params), escape(spec.description))
    return t


def app_table(models: list[AppModel]) -> Table:
    t = Tabular(title="Application models (perfmodel predict NAME; perfmodel models NAME for "
                      "one in full)")
    t.column("name", justify="left")
    for col, drop in (("about", 1), ("constants", None), ("holds for", 2)):
        t.column(col, justify="left", prose=True, drop=drop)
    for m in models:
        lines = [f"{q.name} [{q.unit or '-'}]: {q.description} = {_value(q)}"
                 for q in m.params]
        if m.size is not None:
            lines.insert(0, f"n [{m.size.unit}]: {m.size.description} = "
                            f"{format_number(m.size.value)} "
                            "(--size)")
        held = _range(m.valid) + (f": {m.valid.reason}" if m.valid is not None else "")
        t.add_row(m.name, escape(m.description), escape("\n".join(lines) or "none"),
                  escape(held))
    return t


def formulas_table(models: list[AppModel]) -> Table:
    t = Tabular(title="Application model formulas")
    t.column("name", justify="left")
    t.column("part", justify="left")
    t.column("time = sum of these terms", justify="left", prose=True)
    for m in models:
        for i, part in enumerate(m.parts):
            formula = " + ".join(f"{term}: {text}" for term, text in part.text.items())
            t.add_row(m.name if i == 0 else "", part.name, escape(formula))
        if m.defines:
            t.add_row("", "where", escape("; ".join(f"{k} = {v}" for k, v in m.defines)))
    return t


def constants_table(m: AppModel) -> Table:
    t = Tabular(title="Constants")
    t.column("name", justify="left")
    t.column("unit", justify="left")
    for col, drop in (("meaning", None), ("value", None), ("source", 1)):
        t.column(col, justify="left", prose=True, drop=drop)
    if m.size is not None:
        t.add_row("n", m.size.unit, escape(m.size.description), format_number(m.size.value),
                  "the problem size: --size changes it")
    for q in m.params:
        t.add_row(q.name, q.unit or "-", escape(q.description), escape(_value(q)),
                  escape(q.source or ("" if q.value is None else "given")))
    return t


def show(models: list[AppModel]) -> None:
    """Every network model, then every application model in one row each."""
    out = console()
    out.print(network_table())
    from perfmodel.network.fit import AUTO_CANDIDATES

    out.print(f"auto: fit {', '.join(AUTO_CANDIDATES)}; keep the lowest BIC (a simpler one "
              "within 2 of it).")
    out.print(app_table(models))
    out.print(formulas_table(models))
    out.print(f"[dim]{escape(FITTING)}[/dim]")


def show_one(m: AppModel) -> None:
    """One application model in full: what it is, its constants, formulas and range."""
    out = console()
    out.print(f"[bold]{escape(m.name)}[/bold]: {escape(m.description)}")
    if m.source:
        out.print(f"[dim]source:[/dim] {escape(m.source)}")
    out.print(constants_table(m))
    free = [q.name for q in m.params if q.value is None]
    if free:
        out.print(f"fitted (or given with --set): {', '.join(free)}. {escape(FITTING)}")
    else:
        out.print("every constant has a value: the model predicts without --fit "
                  "(--set overrides one)")
    t = Tabular(title="Parts (a run's time is the sum of their terms; p processes)")
    t.column("part", justify="left")
    t.column("term", justify="left")
    t.column("formula", justify="left", prose=True)
    for part in m.parts:
        for i, (term, text) in enumerate(part.text.items()):
            t.add_row(part.name if i == 0 else "", term, escape(text))
    out.print(t)
    if m.defines:
        out.print("where " + escape("; ".join(f"{k} = {v}" for k, v in m.defines)))
    if m.flops_text:
        out.print(f"flops = {escape(m.flops_text)}")
    out.print(f"holds for: {escape(_range(m.valid))}"
              + (f" — {escape(m.valid.reason)}" if m.valid is not None else
                 escape(" (the file gives no [valid] table)")))
    for note in m.notes:
        out.print(f"[dim]note:[/dim] {escape(note)}")



def model_doc(m: AppModel) -> dict[str, Any]:
    """One application model as plain data (SI units; a constant without a value is null
    and ``fitted``)."""
    valid = None
    if m.valid is not None:
        valid = {"processes": list(m.valid.text), "powers_of_two": m.valid.powers_of_two,
                 "reason": m.valid.reason, "said": m.valid.describe()}
    return {
        "name": m.name, "description": m.description, "source": m.source,
        "size": None if m.size is None else {"value": m.size.value, "unit": m.size.unit,
                                             "description": m.size.description},
        "constants": [{"name": q.name, "unit": q.unit, "description": q.description,
                       "value": q.value, "source": q.source, "lower": q.lower,
                       "fitted": q.value is None} for q in m.params],
        "parts": {p.name: dict(p.text) for p in m.parts},
        "define": dict(m.defines), "flops": m.flops_text or None,
        "valid": valid, "notes": list(m.notes)}


def models_doc(models: list[AppModel]) -> dict[str, Any]:
    return {
        "network": [{"name": s.name, "formula": s.formula, "description": s.description,
                     "parameters": [{"name": p.name, "unit": p.unit,
                                     "description": p.description} for p in s.params]}
                    for s in registry.MODELS.values()],
        "application": [model_doc(m) for m in models],
        "fitting": FITTING}
