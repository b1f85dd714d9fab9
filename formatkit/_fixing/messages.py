"""Everything ``formatkit fix`` says, as templates filled from data: each change's sentence (per change
code) and the command's own lines, one table per language (codes and data keys never change with the
language). A third language is one more table here;
``tests/formats/test_fix_messages.py`` keeps the tables complete and naming the same fields."""

from __future__ import annotations

import string
from typing import Any, Literal

__all__ = ["LANGS", "LINES", "TEMPLATES", "WORDS", "ChangeCode", "Lang", "fields_of", "render"]

Lang = Literal["en", "zh"]
LANGS: tuple[Lang, ...] = ("en", "zh")

ChangeCode = Literal[
    "sheet_moved",
    "header_renamed",
    "key_renamed",
    "cells_unmerged",
    "parameters_rewritten",
    "id_trimmed",
    "formula_to_value",
    "bom_removed",
    "reencoded",
    "xls_converted",
    "parts_lost",
]

TEMPLATES: dict[Lang, dict[ChangeCode, str]] = {
    "en": {
        "sheet_moved": 'moved sheet "{sheet}" (the data) from position {position} to the front: only the first '
        "sheet is read",
        "header_renamed": 'header "{before}" renamed to "{after}" ({how})',
        "key_renamed": 'key "{before}" renamed to "{after}" ({how})',
        "cells_unmerged": "unmerged {range} and wrote {value} into each of its {count} cells",
        "parameters_rewritten": "parameters {before} rewritten as JSON: {after}",
        "id_trimmed": "session_id {before} trimmed to {after}",
        "formula_to_value": "formula {formula} replaced by its saved value {value} (a rewritten workbook cannot "
        "keep a formula's saved value)",
        "bom_removed": "removed the byte-order mark at the start of the file",
        "reencoded": "decoded the file from {encoding} and wrote it as UTF-8 (it reads: {sample})",
        "xls_converted": "rewrote the .xls workbook as .xlsx: values, merged ranges, number formats, column widths "
        "and hidden rows and columns are kept; fonts, colours and borders are not",
        "parts_lost": "the copy could not keep {parts} of the original (openpyxl cannot); the original is untouched",
    },
    "zh": {
        "sheet_moved": '已将数据所在的工作表"{sheet}"从第 {position} 个移到最前：只读取第一个工作表',
        "header_renamed": '表头"{before}"已改为"{after}"（{how}）',
        "key_renamed": '键"{before}"已改为"{after}"（{how}）',
        "cells_unmerged": "已取消合并 {range}，并在其 {count} 个单元格中都填入 {value}",
        "parameters_rewritten": "parameters {before} 已改写为 JSON：{after}",
        "id_trimmed": "session_id {before} 已去掉首尾空白：{after}",
        "formula_to_value": "公式 {formula} 已替换为其保存的值 {value}（重写的工作簿无法保留公式的缓存值）",
        "bom_removed": "已删除文件开头的字节顺序标记（BOM）",
        "reencoded": "已将文件从 {encoding} 解码，并以 UTF-8 写出（内容如：{sample}）",
        "xls_converted": "已将 .xls 工作簿改写为 .xlsx：保留值、合并区域、数字格式、列宽以及隐藏的行和列；"
        "不保留字体、颜色和边框",
        "parts_lost": "副本无法保留原文件中的 {parts}（openpyxl 不支持）；原文件未改动",
    },
}

#: The lines ``formatkit fix`` prints around the changes, per language.
LINES: dict[Lang, dict[str, str]] = {
    "en": {
        "head": "{source} -> {output}: {count} change(s)",
        "head_dry": "{source}: {count} change(s) (dry run: nothing written to {output})",
        "none": "{source}: nothing to repair; {output} is a copy",
        "none_dry": "{source}: nothing to repair (dry run: nothing written)",
        "unread": "{source}: could not be read for repair; nothing written to {output}",
        "after": "The copy, validated:",
        "after_dry": "The copy would validate as:",
        "input": "The input, validated:",
        "left": "{errors} error(s) remain: no repair is certain for them. Fix them in {output} as the messages say.",
    },
    "zh": {
        "head": "{source} -> {output}：{count} 处修改",
        "head_dry": "{source}：{count} 处修改（试运行：未写入 {output}）",
        "none": "{source}：无需修复；{output} 是原文件的副本",
        "none_dry": "{source}：无需修复（试运行：未写入任何文件）",
        "unread": "{source}：无法读取以进行修复；未写入 {output}",
        "after": "副本的校验结果：",
        "after_dry": "副本的校验结果将是：",
        "input": "原文件的校验结果：",
        "left": "还有 {errors} 个错误无法确定地自动修复。请按上面的提示在 {output} 中修改。",
    },
}

#: Words filled into templates (the ``how`` of a renamed header, the kinds of parts lost), per language.
WORDS: dict[Lang, dict[str, str]] = {
    "en": {
        "normalized": "case, width or spaces",
        "alias": "an alias",
        "chinese": "a Chinese name",
        "drawings": "drawings (shapes, images, charts)",
        "media": "images",
        "charts": "charts",
        "vba": "macros",
        "pivots": "pivot tables",
        "slicers": "slicers",
        "other": "other parts",
    },
    "zh": {
        "normalized": "大小写、全角或空格",
        "alias": "别名",
        "chinese": "中文名",
        "drawings": "绘图（形状、图片、图表）",
        "media": "图片",
        "charts": "图表",
        "vba": "宏",
        "pivots": "数据透视表",
        "slicers": "切片器",
        "other": "其他部件",
    },
}


def fields_of(template: str) -> set[str]:
    """The names a template fills in."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


#: Data fields that hold words of :data:`WORDS` (a word or a list of them), translated when filled in.
_WORD_FIELDS = ("how", "parts")
_LIST_SEPARATOR: dict[Lang, str] = {"en": ", ", "zh": "、"}


def render(code: ChangeCode, data: dict[str, Any], lang: Lang = "en") -> str:
    """The sentence for a change: its language's template filled from its data (words translated)."""
    words = WORDS[lang]
    filled = dict(data)
    for key in _WORD_FIELDS:
        if key in filled:
            value = filled[key]
            items = value if isinstance(value, list) else [value]
            filled[key] = _LIST_SEPARATOR[lang].join(words.get(str(item), str(item)) for item in items)
    return TEMPLATES[lang][code].format(**filled)
