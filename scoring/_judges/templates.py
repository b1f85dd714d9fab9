"""Judge prompt templates: the built-in English and Chinese prompts, user templates, rendering.

A template is plain text with placeholders written ``{{name}}``. Double braces never collide with the
single braces of the JSON examples a judge prompt shows. Rendering substitutes every placeholder in one
pass over the template, so a placeholder that appears inside a substituted value (a response that
contains ``{{reference}}``) stays literal text.

Untrusted text (the conversation, the reference, the responses, the checklist) goes between markers of
the form ``⟪NAME⟫ … ⟪/NAME⟫``. :func:`neutralize` removes the marker brackets from that text before it is
substituted, so a response can never close its own fence or open a new one.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Literal

__all__ = [
    "KINDS",
    "Kind",
    "Lang",
    "Template",
    "TemplateError",
    "builtin_template",
    "detect_lang",
    "load_template",
    "neutralize",
    "placeholders",
    "render",
]

Kind = Literal["absolute", "pairwise", "math_extract", "math_grade"]
Lang = Literal["en", "zh"]

KINDS: tuple[Kind, ...] = ("absolute", "pairwise", "math_extract", "math_grade")

#: Placeholders each kind of template must use, and those it may use.
_REQUIRED: dict[Kind, frozenset[str]] = {
    "absolute": frozenset({"question", "reference", "response"}),
    "pairwise": frozenset({"question", "response_a", "response_b", "checklist"}),
    "math_extract": frozenset({"question", "response"}),
    "math_grade": frozenset({"question", "reference", "answer"}),
}
_OPTIONAL: dict[Kind, frozenset[str]] = {
    "absolute": frozenset({"scale_min", "scale_max"}),
    "pairwise": frozenset(),
    "math_extract": frozenset(),
    "math_grade": frozenset(),
}

_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")


class TemplateError(ValueError):
    """A judge template that cannot be used (unreadable, a placeholder missing or unknown)."""


@dataclass(frozen=True)
class Template:
    """A judge prompt: its text, which kind of judge it serves, and where it came from."""

    kind: Kind
    text: str
    source: str

    def render(self, values: dict[str, str]) -> str:
        return render(self.text, values)


def placeholders(text: str) -> set[str]:
    """The placeholder names a template uses."""
    return {m.group(1) for m in _PLACEHOLDER.finditer(text)}


def render(text: str, values: dict[str, str]) -> str:
    """Substitute ``{{name}}`` placeholders in a single pass; substituted text is never rescanned."""

    def _value(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in values:
            raise TemplateError(f"no value for placeholder {{{{{name}}}}}")
        return values[name]

    return _PLACEHOLDER.sub(_value, text)


def _check(kind: Kind, text: str, source: str) -> None:
    used = placeholders(text)
    missing = sorted(_REQUIRED[kind] - used)
    unknown = sorted(used - _REQUIRED[kind] - _OPTIONAL[kind])
    problems: list[str] = []
    if missing:
        problems.append("missing " + ", ".join(f"{{{{{n}}}}}" for n in missing))
    if unknown:
        problems.append("unknown " + ", ".join(f"{{{{{n}}}}}" for n in unknown))
    if problems:
        allowed = sorted(_REQUIRED[kind] | _OPTIONAL[kind])
        raise TemplateError(
            f"judge template {source} ({kind}): {'; '.join(problems)}. "
            f"Required: {', '.join(f'{{{{{n}}}}}' for n in sorted(_REQUIRED[kind]))}; "
            f"allowed: {', '.join(f'{{{{{n}}}}}' for n in allowed)}."
        )


def builtin_template(kind: Kind, lang: Lang) -> Template:
    """One of the prompts shipped with the package (``scoring/_judges/templates/KIND_LANG.txt``)."""
    name = f"{kind}_{lang}.txt"
    text = resources.files("scoring._judges").joinpath("templates").joinpath(name).read_text(encoding="utf-8")
    template = Template(kind=kind, text=text, source=f"builtin:{kind}_{lang}")
    _check(kind, text, template.source)
    return template


def load_template(path: str | Path, kind: Kind) -> Template:
    """A user's own template file, checked for its placeholders before any request is sent."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise TemplateError(f"judge template {file}: not UTF-8 text ({exc.reason})") from exc
    except OSError as exc:
        raise TemplateError(f"judge template {file}: cannot read it ({exc.strerror or exc})") from exc
    _check(kind, text, str(file))
    return Template(kind=kind, text=text, source=str(file))


#: The fence brackets of the prompts, and chat-template special-token brackets; the replacement keeps
#: the text readable for the judge while making the tokens impossible to forge.
_NEUTRALIZE = str.maketrans({"⟪": "«", "⟫": "»", "\u0000": ""})
_SPECIAL_TOKEN = re.compile(r"<\|([^|<>]{0,64})\|>")


def neutralize(text: str) -> str:
    """Untrusted text made safe to put between prompt markers.

    Removes the marker brackets ``⟪ ⟫`` (a response cannot close its own fence or forge another) and
    breaks chat special tokens such as ``<|im_end|>`` into harmless ``<| im_end |>``-like text.
    """
    text = text.translate(_NEUTRALIZE)
    return _SPECIAL_TOKEN.sub(lambda m: f"< |{m.group(1)}| >", text)


def _is_cjk(char: str) -> bool:
    code = ord(char)
    return (
        0x4E00 <= code <= 0x9FFF
        or 0x3400 <= code <= 0x4DBF
        or 0x20000 <= code <= 0x2A6DF
        or 0xF900 <= code <= 0xFAFF
        or 0x3040 <= code <= 0x30FF
    )


def detect_lang(text: str, *, threshold: float = 0.2) -> Lang:
    """``zh`` when CJK characters make up at least ``threshold`` of the letters in ``text``, else ``en``.

    Latin letters count one each, so a Chinese question with a formula or an English term in it
    (``求 f(x)=x^2 的最小值``) still counts as Chinese.
    """
    cjk = latin = 0
    for char in text:
        if _is_cjk(char):
            cjk += 1
        elif char.isalpha() and unicodedata.category(char).startswith("L"):
            latin += 1
    if cjk == 0:
        return "en"
    return "zh" if cjk / (cjk + latin) >= threshold else "en"
