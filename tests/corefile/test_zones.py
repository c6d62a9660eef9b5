"""The FROM zone of a forward as CoreDNS normalises it (plugin.Host.NormalizeExact), and values
lexed as exactly one token: the rules lint, guard and render share."""

from __future__ import annotations

import pytest

from gen.corefile import Directive, is_root_forward, normalize_zone
from gen.corefile.lexer import one_token_problem


@pytest.mark.parametrize(("text", "zone"), [
    (".", "."), (".:53", "."), ("dns://.", "."), ("dns://.:53", "."), ("tls://.:853", "."), ("grpc://.", "."),
    ("https3://.", "."), (".:+53", "."),
    ("Corp.Example", "corp.example."), ("dns://corp.example.:5353", "corp.example."), ("10.in-addr.arpa", "10.in-addr.arpa."),
    ("DNS://.", "dns://."),  # the transport prefix is case-sensitive in CoreDNS: this is a zone, not the root
    (".:", None), ("", None), ("dns://", None), ("..", None), ("a..b", None), ("x" * 256, None),
])
def test_forward_from_is_normalised_as_coredns_does(text: str, zone: str | None) -> None:
    assert normalize_zone(text) == zone


@pytest.mark.parametrize(("args", "root"), [
    ([".", "1.1.1.1"], True), ([".:53", "1.1.1.1"], True), (["dns://.", "1.1.1.1"], True), (["tls://.:853", "1.1.1.1"], True),
    (["corp.example", "10.0.0.1"], False), ([], False),
])
def test_root_forward_whatever_its_spelling(args: list[str], root: bool) -> None:
    assert is_root_forward(Directive("forward", args, 1)) is root


@pytest.mark.parametrize(("text", "problem"), [
    ("10.0.0.1", None), ("[fd00::1]:53", None), ("a\"b", None),
    ("fe80::1%x 10.0.0.2", "would be 2 Corefile tokens ('fe80::1%x', '10.0.0.2'), not one"),
    ("fe80::1%x#", "would reach CoreDNS as 'fe80::1%x' ('#' starts a comment)"),
    ('"10.0.0.1"', "would reach CoreDNS as '10.0.0.1' (quotes are Corefile syntax)"),
    ("10.0.0.1\u2028", "would reach CoreDNS as '10.0.0.1' (spaces separate tokens)"),
    ("{", "is a Corefile brace"), ("# x", "is blank or a comment to CoreDNS's Corefile lexer"), (" ", "is blank or a comment to CoreDNS's Corefile lexer"),
    ('"x', "opens a '\"' it never closes, which would swallow the rest of the Corefile"),
])
def test_a_value_must_lex_as_exactly_itself(text: str, problem: str | None) -> None:
    assert one_token_problem(text) == problem
