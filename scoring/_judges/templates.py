"""Judge prompt templates: the built-in English and Chinese prompts, user templates, rendering.

The prompt languages are formatkit's languages (:data:`formatkit._core.messages.LANGUAGES`): a language
without its own built-in prompts (``templates/KIND_LANG.txt``) is judged with the English ones, and
:func:`builtin_name` says which prompt a language gets.

A template is plain text with placeholders written ``{{name}}``. Double braces never collide with the
single braces of the JSON examples a judge prompt shows. Rendering substitutes every placeholder in one
pass over the template, so a placeholder that appears inside a substituted value (a response that
contains ``{{reference}}``) stays literal text.

Untrusted text (the conversation, the reference, the responses, the checklist) goes between markers of
the form ``⟪NAME⟫ … ⟪/NAME⟫``. :func:`neutralize` removes the marker brackets from that text before it is
substituted, so a response can never close its own fence or open a new one.

Which kinds of template there are, and the placeholders each must and may use, is said by the judge
kinds (:mod:`scoring._judges.kinds`): each lists its prompts as :class:`Stage` entries. A stage named by
a string (``"absolute"``) is looked up among the judge kinds of the metric table.

``{{nonce}}`` (optional in every kind) is filled with :func:`nonce_for` of the request: the built-in
prompts ask for the verdict inside ``<verdict-{{nonce}}>`` (``<score-…>``, ``<answer-…>``), which the
judged text cannot contain (see :mod:`scoring._judges.parse`).
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from formatkit._core.smallfile import SmallFileError, read_small_file
from scoring._metrics.registry import implementation, metric_names, spec_of

__all__ = [  # and KINDS, computed on first use (see __getattr__)
    "NONCE_DIGITS",
    "Kind",
    "Lang",
    "Stage",
    "Template",
    "TemplateError",
    "builtin_name",
    "builtin_template",
    "detect_lang",
    "load_template",
    "neutralize",
    "nonce_for",
    "placeholders",
    "render",
    "stage_named",
]

#: The name of a kind of template (a judge kind's prompt): ``absolute``, ``pairwise``, ``math_extract``...
Kind = str
#: A language of formatkit's table of languages (``en``, ``zh``, …).
Lang = str


@dataclass(frozen=True)
class Stage:
    """One prompt of a judge kind: its name, the placeholders it must use and those it may use, and its
    built-in text by language (None: the package's ``templates/NAME_LANG.txt``)."""

    name: str
    required: frozenset[str]
    optional: frozenset[str] = frozenset({"nonce"})
    texts: Mapping[Lang, str] | None = None


def _stages() -> list[Stage]:
    """Every prompt of the judge kinds in the metric table (each kind's module imported on first use)."""
    found: list[Stage] = []
    for name in metric_names("judge"):
        for stage in getattr(implementation(spec_of(name)), "stages", ()):
            if isinstance(stage, Stage):
                found.append(stage)
    return found


def stage_named(kind: Kind | Stage) -> Stage:
    """The stage of a judge kind named ``kind`` (a :class:`Stage` is returned as it is)."""
    if isinstance(kind, Stage):
        return kind
    for stage in _stages():
        if stage.name == kind:
            return stage
    raise TemplateError(f"no judge kind has a template named {kind!r}")


def __getattr__(name: str) -> tuple[Kind, ...]:
    """``KINDS``: the template kinds shipped as files (``templates/KIND_LANG.txt``), read off the judge kinds."""
    if name == "KINDS":
        return tuple(stage.name for stage in _stages() if stage.texts is None)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: The built-in prompts, ``KIND_LANG.txt``; English's are the ones every language falls back on.
_TEMPLATES = resources.files("scoring._judges").joinpath("templates")
ENGLISH = "en"

#: Hex digits of a request's nonce: 48 bits, so a response cannot be searched into carrying its own.
NONCE_DIGITS = 12

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

    @property
    def uses_nonce(self) -> bool:
        return "nonce" in placeholders(self.text)

    def prompt(self, values: dict[str, str]) -> tuple[str, str | None]:
        """The rendered prompt and the nonce of its verdict tag (None when the template asks for none)."""
        if not self.uses_nonce:
            return self.render(values), None
        nonce = nonce_for(self.text, values)
        return self.render({**values, "nonce": nonce}), nonce


def nonce_for(text: str, values: dict[str, str]) -> str:
    """The nonce of one request: a hash of the template and every value put into it.

    It is new for every prompt (each response, each pairwise order), the same on a rerun (so the
    journal's request key, and the reply bought, stay the same), and out of the judged text's reach: a
    response would have to contain a hash of a prompt that contains the response.
    """
    digest = hashlib.sha256(text.encode("utf-8"))
    for name in sorted(values):
        for part in (name, values[name]):
            data = part.encode("utf-8", "surrogatepass")
            digest.update(len(data).to_bytes(8, "big"))
            digest.update(data)
    return digest.hexdigest()[:NONCE_DIGITS]


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


def _check(stage: Stage, text: str, source: str) -> None:
    kind, required = stage.name, stage.required
    used = placeholders(text)
    missing = sorted(required - used)
    unknown = sorted(used - required - stage.optional)
    problems: list[str] = []
    if missing:
        problems.append("missing " + ", ".join(f"{{{{{n}}}}}" for n in missing))
    if unknown:
        problems.append("unknown " + ", ".join(f"{{{{{n}}}}}" for n in unknown))
    if problems:
        allowed = sorted(required | stage.optional)
        raise TemplateError(
            f"judge template {source} ({kind}): {'; '.join(problems)}. "
            f"Required: {', '.join(f'{{{{{n}}}}}' for n in sorted(required))}; "
            f"allowed: {', '.join(f'{{{{{n}}}}}' for n in allowed)}."
        )


def builtin_name(kind: Kind | Stage, lang: Lang) -> str:
    """The built-in prompt of ``kind`` that ``lang`` gets: ``KIND_LANG`` (``absolute_zh``), or the English
    ``KIND_en`` when there is none in that language (a file ``templates/KIND_LANG.txt``, or a text of the
    judge kind's own)."""
    stage = stage_named(kind)
    if stage.texts is not None:
        own = lang if lang in stage.texts else ENGLISH if ENGLISH in stage.texts else next(iter(stage.texts))
    else:
        own = lang if _TEMPLATES.joinpath(f"{stage.name}_{lang}.txt").is_file() else ENGLISH
    return f"{stage.name}_{own}"


def builtin_template(kind: Kind | Stage, lang: Lang) -> Template:
    """One of the prompts shipped with the package (``scoring/_judges/templates/KIND_LANG.txt``), or the
    text a judge kind gives its stage in its own module; English's for a language without its own (see
    :func:`builtin_name`)."""
    stage = stage_named(kind)
    name = builtin_name(stage, lang)
    if stage.texts is not None:
        text = stage.texts[name.removeprefix(f"{stage.name}_")]
    else:
        text = _TEMPLATES.joinpath(f"{name}.txt").read_text(encoding="utf-8")
    template = Template(kind=stage.name, text=text, source=f"builtin:{name}")
    _check(stage, text, template.source)
    return template


def load_template(path: str | Path, kind: Kind | Stage) -> Template:
    """A user's own template file, checked for its placeholders before any request is sent."""
    file = Path(path)
    try:
        text = read_small_file(file).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TemplateError(f"judge template {file}: not UTF-8 text ({exc.reason})") from exc
    except SmallFileError as exc:
        raise TemplateError(f"judge template: cannot read {exc}") from exc
    stage = stage_named(kind)
    _check(stage, text, str(file))
    return Template(kind=stage.name, text=text, source=str(file))


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
