"""Units after an answer: ``15 m``, ``180 dm²``, ``12平方厘米``, ``30°``, ``45%``, ``42个``.

:func:`split_unit` separates a trailing unit from the value and names it canonically, so ``平方米``,
``m^2`` and ``square meters`` are the same unit. The scoring rules (docs/pages/scoring.md) are applied by
the caller: a reference without unit accepts any unit, a missing unit is fine, two different units are a
wrong answer — unless they are of one kind and the quantities agree once converted (:data:`SCALES`:
``5 cm`` = ``0.05 m``).
"""

from __future__ import annotations

import re

__all__ = ["SCALES", "split_unit"]

_ALIASES: dict[str, tuple[str, ...]] = {
    "km^2": ("km^2", "km2", "平方千米", "平方公里", "square kilometers", "square kilometres", "sq km"),
    "m^2": ("m^2", "m2", "平方米", "square meters", "square metres", "sq m", "square meter"),
    "dm^2": ("dm^2", "dm2", "平方分米", "square decimeters"),
    "cm^2": ("cm^2", "cm2", "平方厘米", "square centimeters", "square centimetres", "sq cm"),
    "mm^2": ("mm^2", "mm2", "平方毫米", "square millimeters"),
    "m^3": ("m^3", "m3", "立方米", "cubic meters", "cubic metres"),
    "dm^3": ("dm^3", "dm3", "立方分米"),
    "cm^3": ("cm^3", "cm3", "立方厘米", "cubic centimeters", "cc"),
    "km/h": ("km/h", "kmh", "千米/时", "千米每小时", "公里/小时", "kilometers per hour", "kph"),
    "m/s": ("m/s", "米/秒", "米每秒", "meters per second"),
    "mph": ("mph", "miles per hour"),
    "km": ("km", "千米", "公里", "kilometers", "kilometres", "kilometer"),
    "m": ("m", "米", "meters", "metres", "meter", "metre"),
    "dm": ("dm", "分米", "decimeters"),
    "cm": ("cm", "厘米", "centimeters", "centimetres", "centimeter"),
    "mm": ("mm", "毫米", "millimeters", "millimetres", "millimeter"),
    "kg": ("kg", "千克", "公斤", "kilograms", "kilogram", "kilos"),
    "g": ("g", "克", "grams", "gram"),
    "mg": ("mg", "毫克", "milligrams"),
    "t": ("t", "吨", "tons", "tonnes", "ton"),
    "l": ("l", "升", "liters", "litres", "liter"),
    "ml": ("ml", "毫升", "milliliters", "millilitres"),
    "h": ("h", "hr", "hrs", "小时", "hours", "hour"),
    "min": ("min", "mins", "分钟", "minutes", "minute"),
    "s": ("s", "sec", "秒", "seconds", "second"),
    "day": ("天", "日", "days", "day"),
    "year": ("年", "years", "year", "岁"),
    "yuan": ("元", "yuan", "rmb", "块", "块钱", "元钱"),
    "dollar": ("dollars", "dollar", "usd", "bucks"),
    "cent": ("cents", "cent"),
    "ft": ("ft", "feet", "foot"),
    "in": ("inches", "inch"),
    "mile": ("miles", "mile"),
    "°": ("°", "度", "degrees", "degree", "deg"),
    "%": ("%", "percent", "百分之"),
}
_CANON: dict[str, str] = {alias.casefold(): canon for canon, aliases in _ALIASES.items() for alias in aliases}
_KNOWN = sorted(_CANON, key=len, reverse=True)
_KNOWN_RE = re.compile(
    r"^(?P<value>.*?[\d)}a-zA-Z])\s*(?P<unit>" + "|".join(re.escape(u) for u in _KNOWN) + r")\s*\.?$",
    re.IGNORECASE,
)
_GENERIC_EN = re.compile(r"^(?P<value>[-+]?[\d.,/]+)\s+(?P<unit>[a-zA-Z]{2,15}(?:\s[a-zA-Z]{2,15})?)\s*\.?$")
_GENERIC_ZH = re.compile(r"^(?P<value>[-+]?[\d.,/]+)\s*(?P<unit>[\u4e00-\u9fff]{1,3})\s*\.?$")
# A physical unit written as symbols after a number and a space: "47040 N·m", "2.83 V", "9 cm/s^2", "5 Ω".
_SYMBOL_UNIT = re.compile(
    r"^(?P<value>[-+]?[\d.,]+)\s+(?P<unit>(?:[A-ZΩμ]|[A-Za-zΩμ]+[·/^*][A-Za-z0-9Ωμ·/^*]{0,10}|[A-Za-zΩμ]+\^\d))\s*\.?$"
)
_NUMERIC_END = re.compile(r"[\d)}]$")


def split_unit(text: str) -> tuple[str, str | None]:
    """``(value, canonical unit or None)``. Only a unit after a value counts: ``x`` alone has no unit."""
    s = text.strip()
    if not s:
        return s, None
    m = _KNOWN_RE.match(s)
    if m:
        value = m.group("value").strip()
        unit = m.group("unit").casefold()
        single_letter = len(unit) == 1 and unit.isalpha()
        # A single-letter unit ("m", "g", "s") only after a number, and never glued to a letter: "2m" yes, "am" no.
        if not single_letter or _NUMERIC_END.search(value):
            glued = not s[len(value) :].startswith((" ", "\t"))
            if value and not (single_letter and value[-1].isalpha()) and not (unit in ("t", "l") and glued):
                return value, _CANON[unit]
    m = _SYMBOL_UNIT.match(s)
    if m:
        return m.group("value").strip(), m.group("unit")
    for generic in (_GENERIC_EN, _GENERIC_ZH):
        m = generic.match(s)
        if m and m.group("unit").casefold() not in ("or", "and", "to"):
            return m.group("value").strip(), m.group("unit").casefold()
    return s, None


# Units of one kind convert: 5 cm is 0.05 m (the same quantity, so not a wrong unit). Value in base units.
SCALES: dict[str, tuple[str, float]] = {
    "km": ("length", 1000.0),
    "m": ("length", 1.0),
    "dm": ("length", 0.1),
    "cm": ("length", 0.01),
    "mm": ("length", 0.001),
    "km^2": ("area", 1e6),
    "m^2": ("area", 1.0),
    "dm^2": ("area", 0.01),
    "cm^2": ("area", 1e-4),
    "mm^2": ("area", 1e-6),
    "m^3": ("volume", 1.0),
    "dm^3": ("volume", 1e-3),
    "cm^3": ("volume", 1e-6),
    "l": ("volume", 1e-3),
    "ml": ("volume", 1e-6),
    "t": ("mass", 1000.0),
    "kg": ("mass", 1.0),
    "g": ("mass", 1e-3),
    "mg": ("mass", 1e-6),
    "h": ("time", 3600.0),
    "min": ("time", 60.0),
    "s": ("time", 1.0),
    "day": ("time", 86400.0),
    "km/h": ("speed", 1 / 3.6),
    "m/s": ("speed", 1.0),
    "yuan": ("money", 1.0),
    "角": ("money", 0.1),
}
