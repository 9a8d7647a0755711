"""`phasing completion bash|zsh` (issue 45, item 5): a completion script generated from the
command's own parser, so that every command, option and choice completes, and the names of
the versions and variants."""

from __future__ import annotations

import shlex
import shutil
import subprocess

import pytest

from phasing_rules.interpreter import cli

BASH = shutil.which("bash")
ZSH = shutil.which("zsh")


def script(capsys, shell: str) -> str:
    assert cli.main(["completion", shell]) == 0
    return capsys.readouterr().out


def completions(text: str, *words: str, cwd=None) -> list[str]:
    """What the bash script offers for the command line `words` (the last is the word being
    completed), as bash calls it: COMP_WORDS and COMP_CWORD set, then the function."""
    line = " ".join(shlex.quote(w) for w in words)
    program = (f"{text}\nCOMP_WORDS=({line}); COMP_CWORD={len(words) - 1}; _phasing\n"
               'printf "%s\\n" "${COMPREPLY[@]}"\n')
    done = subprocess.run([BASH, "--norc", "--noprofile", "-c", program], capture_output=True, text=True,
                          timeout=30, cwd=cwd)
    assert done.returncode == 0, done.stderr
    return [line for line in done.stdout.splitlines() if line]


@pytest.mark.skipif(BASH is None, reason="no bash")
def test_bash_completes_commands_options_versions_and_choices(capsys):
    """`phasing ver` completes to `versions`; a command's options, the version names after
    `--rules` and as diff's A and B, and a positional's choices complete too."""
    text = script(capsys, "bash")
    assert completions(text, "phasing", "ver") == ["versions"]
    assert set(completions(text, "phasing", "test", "--ru")) == {"--rules", "--rules-path"}
    assert "2026-09-25" in completions(text, "phasing", "test", "--rules", "2026")
    assert completions(text, "phasing", "diff", "--search", "5", "2011-02-0") == ["2011-02-04"]
    assert completions(text, "phasing", "import", "fo") == ["forge"]
    assert completions(text, "phasing", "completion", "z") == ["zsh"]


@pytest.mark.skipif(BASH is None, reason="no bash")
def test_bash_completes_files_where_a_command_takes_them(capsys, tmp_path):
    """Diff's third word on is a scenario file: files complete there."""
    (tmp_path / "mine.scenario").write_text("", encoding="utf-8")
    text = script(capsys, "bash")
    assert completions(text, "phasing", "diff", "2011-02-04", "2026-09-25", "mi", cwd=tmp_path) == ["mine.scenario"]


def test_the_scripts_name_every_command_and_option(capsys):
    """Both scripts are made from the parser: every command and every option of each is in them."""
    parser = cli.build_parser()
    commands, _names = cli._completion_words(parser)
    for shell in cli.SHELLS:
        text = script(capsys, shell)
        for name, (_help, options, _positionals) in commands.items():
            assert name in text
            for strings, *_rest in options:
                assert all(option in text for option in strings), (shell, name, strings)


@pytest.mark.skipif(ZSH is None, reason="no zsh")
def test_the_zsh_script_parses_and_registers_itself(capsys, tmp_path):
    """`zsh -n` reads the script without error, and sourced after compinit it registers
    `_phasing` as the completion of `phasing`."""
    path = tmp_path / "_phasing"
    path.write_text(script(capsys, "zsh"), encoding="utf-8")
    checked = subprocess.run([ZSH, "-n", str(path)], capture_output=True, text=True, timeout=30)
    assert checked.returncode == 0, checked.stderr
    program = f"autoload -U compinit && compinit -u -d {tmp_path}/zcompdump; source {path}; print -r -- $_comps[phasing]"
    done = subprocess.run([ZSH, "-f", "-c", program], capture_output=True, text=True, timeout=30)
    assert done.stdout.strip() == "_phasing", done.stderr
