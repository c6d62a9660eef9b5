"""Parser cases: every syntax feature CoreDNS's Caddyfile dialect has, and malformed input with positions."""

from __future__ import annotations

from pathlib import Path

import pytest

from gen.corefile import (
    CorefileError,
    Source,
    VirtualFS,
    expand_env,
    expand_imports,
    forward_upstreams,
    forwards,
    is_root_forward,
    parse_corefile,
    parse_directives,
)

REPO = Path(__file__).resolve().parents[2]
STOCK = sorted((REPO / "gen" / "data").glob("*/*.Corefile"))


def test_server_block_with_several_keys_and_schemes() -> None:
    cf = parse_corefile("example.org:1053 dns://foo.com, .:53 {\n  whoami\n}\n", filename="C")
    (block,) = cf.server_blocks
    assert block.keys == ["example.org:1053", "dns://foo.com", ".:53"]
    assert [(k.scheme, k.zone, k.port) for k in block.addresses] == [
        ("dns", "example.org", "1053"), ("dns", "foo.com", None), ("dns", ".", "53")]
    assert block.ports() == [1053, 53, 53]
    assert (block.line, block.col, block.end_line) == (1, 1, 3)


def test_keys_continue_after_trailing_comma_and_brace_on_next_line() -> None:
    cf = parse_corefile("a.org,\n  b.org:53\n{\n  whoami\n}\n", filename="C")
    assert cf.server_blocks[0].keys == ["a.org", "b.org:53"]


def test_nested_blocks_keep_lines_and_columns() -> None:
    text = ".:53 {\n    forward . 10.0.0.1 /etc/resolv.conf {\n        policy sequential\n        next SERVFAIL REFUSED\n    }\n    forward . /etc/resolv.conf\n}\n"
    (block,) = parse_corefile(text, filename="C").server_blocks
    first, second = forwards(block)
    assert (first.line, first.col, first.end_line) == (2, 5, 5)
    assert forward_upstreams(first) == ["10.0.0.1", "/etc/resolv.conf"]
    assert first.option("next") is not None and first.option("next").args == ["SERVFAIL", "REFUSED"]  # type: ignore[union-attr]
    assert first.option("next").line == 4  # type: ignore[union-attr]
    assert is_root_forward(second) and second.block is None and second.line == 6


def test_nested_block_on_one_line() -> None:
    (block,) = parse_corefile(".:53 {\n  forward . 1.1.1.1 { policy sequential }\n}\n", filename="C").server_blocks
    assert block.directives[0].block is not None
    assert [(d.name, d.args) for d in block.directives[0].block] == [("policy", ["sequential"])]


def test_quoted_tokens_and_escapes() -> None:
    text = '.:53 {\n  template IN A foo {\n    answer "{{ .Name }} 60 IN A 127.0.0.1"\n  }\n  log . "a \\"b\\" c"\n}\n'
    (block,) = parse_corefile(text, filename="C").server_blocks
    assert block.directives[0].block[0].args == ["{{ .Name }} 60 IN A 127.0.0.1"]  # type: ignore[index]
    assert block.directives[1].args == [".", 'a "b" c']


def test_comments_anywhere() -> None:
    text = "# header\n.:53 { # open\n  whoami # trailing\n  # alone\n  log#glued\n}\n"
    (block,) = parse_corefile(text, filename="C").server_blocks
    assert [(d.name, d.args, d.line) for d in block.directives] == [("whoami", [], 3), ("log", [], 5)]


def test_env_placeholders_kept_verbatim_and_expandable() -> None:
    cf = parse_corefile(".:{$PORT} {\n  forward . {%UPSTREAM%}\n}\n", filename="C")
    (block,) = cf.server_blocks
    assert block.keys == [".:{$PORT}"] and block.directives[0].args == [".", "{%UPSTREAM%}"]
    assert expand_env(block.keys[0], {"PORT": "1053"}) == ".:1053"
    assert expand_env("{%UPSTREAM%}", {"UPSTREAM": "9.9.9.9"}) == "9.9.9.9"


def test_snippets_and_their_import() -> None:
    text = "(common) {\n  errors\n  log\n}\n.:53 {\n  import common\n  whoami\n}\n"
    cf = parse_corefile(text, filename="C")
    assert list(cf.snippets) == ["common"] and (cf.snippets["common"].line, cf.snippets["common"].col) == (1, 1)
    assert [d.name for d in cf.server_blocks[0].directives] == ["import", "whoami"]
    expanded = expand_imports(cf)
    assert [(d.name, d.line) for d in expanded.server_blocks[0].directives] == [
        ("errors", 2), ("log", 3), ("whoami", 7)]


def test_import_with_globs_from_a_virtual_filesystem() -> None:
    text = ".:53 {\n  whoami\n  import custom/*.override\n}\nimport custom/*.server\n"
    cf = parse_corefile(text, filename="Corefile")
    assert [d.args for d in cf.imports] == [["custom/*.server"]]
    fs = VirtualFS({
        "/etc/coredns/custom/a.override": Source("log\n", "cm.yaml", line_offset=10, col_offset=4),
        "/etc/coredns/custom/b.server": Source("b.org:53 {\n  forward . 1.2.3.4\n}\n", "cm.yaml", 20, 4),
        "/etc/coredns/custom/c.txt": Source("bogus {\n", "cm.yaml"),
    })
    out = expand_imports(cf, fs)
    first, second = out.server_blocks
    assert [(d.name, d.file, d.line, d.col) for d in first.directives] == [
        ("whoami", "Corefile", 2, 3), ("log", "cm.yaml", 11, 5)]
    assert second.keys == ["b.org:53"] and (second.file, second.line) == ("cm.yaml", 21)
    assert fs("custom/*.nothing") == [] and fs("custom/missing.server") is None
    assert fs("/etc/coredns/custom/*.server") == [fs.files["/etc/coredns/custom/b.server"]]


def test_unresolved_import_stays_in_tree() -> None:
    cf = expand_imports(parse_corefile(".:53 {\n  import custom/*.override\n}\n", filename="C"))
    assert cf.server_blocks[0].directives[0].name == "import"


def test_import_loop_is_refused() -> None:
    cf = parse_corefile(".:53 {\n  import custom/loop.override\n}\n", filename="C")
    fs = VirtualFS({"/etc/coredns/custom/loop.override": Source("import custom/loop.override\n", "L")})
    with pytest.raises(CorefileError, match="import loop"):
        expand_imports(cf, fs)


def test_file_without_braces_is_one_block() -> None:
    cf = parse_corefile(".:53\nwhoami\nforward . 1.1.1.1\n", filename="C")
    assert [d.name for d in cf.server_blocks[0].directives] == ["whoami", "forward"]


def test_override_body_parses_as_directives() -> None:
    ds = parse_directives("log\nforward . 1.1.1.1 {\n  max_fails 3\n}\n", filename="x.override")
    assert [(d.name, d.line) for d in ds] == [("log", 1), ("forward", 2)]


def test_offsets_map_into_a_yaml_file() -> None:
    cf = parse_corefile(".:53 {\n  whoami\n}\n", filename="cm.yaml", line_offset=7, col_offset=4)
    d = cf.server_blocks[0].directives[0]
    assert (d.line, d.col) == (9, 7)
    pinned = parse_corefile(".:53 {\n  whoami\n}\n", filename="cm.yaml", fixed_line=3)
    assert pinned.server_blocks[0].directives[0].line == 3


def test_render_round_trips_and_reflects_edits() -> None:
    text = "(s) {\n  log\n}\n.:53 {\n  import s\n  forward . 10.0.0.1 { policy sequential }\n}\nimport custom/*.server\n"
    cf = parse_corefile(text, filename="C")
    again = parse_corefile(cf.render(), filename="C")
    assert again.render() == cf.render()
    block = cf.server_blocks[0]
    forwards(block)[0].args[1:] = ["127.0.0.2:5300", "127.0.0.3:5300"]
    block.keys = [block.addresses[0].with_port(15353)]
    rendered = cf.render()
    assert ".:15353 {" in rendered and "forward . 127.0.0.2:5300 127.0.0.3:5300 {" in rendered


def test_render_quotes_tokens_that_need_it() -> None:
    cf = parse_corefile('.:53 {\n  log . "{remote} {name}"\n  hosts "" x\n}\n', filename="C")
    assert 'log . "{remote} {name}"' in cf.render() and 'hosts "" x' in cf.render()


@pytest.mark.parametrize("path", STOCK, ids=[p.name for p in STOCK])
def test_stock_corefiles_parse_and_round_trip(path: Path) -> None:
    cf = parse_corefile(path.read_text(), filename=path.name)
    assert len(cf.server_blocks) >= 1
    assert parse_corefile(cf.render(), filename="r").render() == cf.render()


MALFORMED = [  # CoreDNS's own message (it keeps lines only) where its parser refuses; ours where only its setup would
    ('.:53 {\n  whoami\n', "C:2: corefile: CoreDNS refuses it: Syntax error: Unexpected token 'whoami', expecting '}'"),
    ('.:53 {\n  whoami }\n', "C:2: corefile: CoreDNS refuses it: Unexpected '}' because no matching opening brace"),
    ('}\n', "C:1:1: corefile: unexpected '}' with no matching '{'"),
    ('{\n  whoami\n}\n', 'C:1:1: corefile: server block has no address'),
    ('.:53 {\n  forward . 1.1.1.1\n  {\n  }\n}\n', "C:3:3: corefile: '{' must follow a directive on the same line"),
    ('a.org, {\n}\n', "C:1: corefile: CoreDNS refuses it: Expected another address but had '{' - check for extra comma"),
    ('.:53 {\n  log "abc\n}\n', 'C:2: corefile: unterminated quoted string'),
    ('.:53 {\n  import\n}\n', "C:2: corefile: CoreDNS refuses it: Wrong argument count or unexpected line ending after 'import'"),
    ('.:53 {\n  import a b\n}\n', 'C:2: corefile: CoreDNS refuses it: Import takes only one argument (glob pattern or file)'),
    ('(s) {\n}\n(s) {\n}\n', 'C:3: corefile: CoreDNS refuses it: redeclaration of previously declared snippet s'),
    ('(s)\nwhoami\n', "C:2: corefile: CoreDNS refuses it: Syntax error: Unexpected token 'whoami', expecting '{'"),
    ('example.com{\n  forward . 1.1.1.1\n}\n', "C:1:12: corefile: the '{' is glued to `example.com`: CoreDNS reads "
     "`example.com{` as the server block's key (a zone no query matches) and opens no block"),
    ('.:53\nwhoami\n}\n', "C:3:1: corefile: unexpected '}' with no matching '{'"),
]


@pytest.mark.parametrize(("text", "message"), MALFORMED, ids=[m[1].split(": ", 2)[2] for m in MALFORMED])
def test_malformed_input_names_file_line_column(text: str, message: str) -> None:
    with pytest.raises(CorefileError) as info:
        parse_corefile(text, filename="C")
    assert str(info.value).startswith(message)
    assert " — fix: " in str(info.value)
    assert info.value.exit_code == 2


def test_malformed_position_maps_into_yaml() -> None:
    with pytest.raises(CorefileError, match=r"^cm.yaml:13: corefile: CoreDNS refuses it: Syntax error: Unexpected token 'whoami'"):
        parse_corefile(".:53 {\n  whoami\n", filename="cm.yaml", line_offset=11, col_offset=4)
