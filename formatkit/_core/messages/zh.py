"""简体中文：与 en.py 键相同、字段相同（tests/formats/test_messages.py 检查）。

菜单名按中文版 Excel 与 WPS 表格的叫法写；代码、列名、JSON 键与命令行选项保持英文原样（用户要照着输入）。
"""

from __future__ import annotations

from formatkit._core.formats import listed_suffixes

_READS = listed_suffixes("、", " 和 ")  # the table of input formats: .xlsx、.xls 和 .jsonl
_RESAVE = "请用 Excel（或 WPS）打开后另存为 .xlsx"
_UNMERGE = "开始 → 合并后居中 → 取消单元格合并（WPS：开始 → 合并居中 → 取消合并单元格）"
_AS_TEXT = "右键单击 → 设置单元格格式 → 数字 → 文本"

MESSAGES: dict[str, str] = {
    # --- 文件与上传 -----------------------------------------------------------------------------------
    "unsupported_extension": "“{name}”是 {suffix} 文件；formatkit 只读取 " + _READS + "。{fix}",
    "frag.extension_less": "无扩展名的",
    "frag.save_csv_as_xlsx": "请在 Excel 中把 .csv 另存为 .xlsx（文件 → 另存为 → Excel 工作簿）。",
    "frag.convert_format": "请先转换为上述格式之一。",
    "too_many_files": "共给出 {count} 个文件；平台每次上传最多 {limit} 个。请分批上传，或在本地使用 --profile none。",
    "too_many_rows": "第 {row} 行是第 {index:,} 条数据行；平台每个文件最多 {limit:,} 行，已在此处停止读取。"
    "该工作表共有 {total:,} 条数据行：请拆成 {files:,} 个文件（每个不超过 {limit:,} 行），或在本地使用 --profile none。",
    "too_many_rows.jsonl": "文件超过 {limit} 行，超出平台每个文件的上限；已在此行停止读取。请拆成多个文件，或在本地使用 "
    "--profile none。",
    "empty_file.jsonl": "文件是空的。请每行写一个 JSON 对象。",
    "empty_file.workbook": "文件是空的（0 字节）。请用 Excel 重新保存工作簿。",
    "empty_file.no_worksheet": "工作簿中没有工作表。请把表格放在工作表上。",
    "empty_file.only_charts": "工作簿中没有工作表（只有图表或宏）。请把表格放在工作表上。",
    "empty_file.sheet": "工作簿中没有数据：第一个工作表是空的。请在第 1 行写表头（session_id、system_prompt、query、"
    "reference_response、parameters、response），每条记录占一行。",
    "empty_file.named_sheet": "工作表“{sheet}”中没有数据。请在第 1 行写表头（session_id、system_prompt、query、"
    "reference_response、parameters、response），每条记录占一行。",
    "no_records.header_only": "工作表“{sheet}”只有表头，没有数据行。请从第 2 行起每条记录写一行。",
    "no_records.first_sheet_empty": "第一个工作表“{sheet}”是空的，而只读取第一个工作表；“{other}”上的数据被忽略。"
    '请把那个工作表移到最前面（把它的标签拖到最左边），或用 --sheet "{other}" 读取它。',
    "no_records.first_sheet_not_data": "第一个工作表“{sheet}”的第 1 行没有评测集的列（session_id、query、"
    "reference_response……），而只读取第一个工作表；“{other}”上的数据被忽略。如果记录在“{other}”上，请把它移到最前面"
    '（把它的标签拖到最左边），或用 --sheet "{other}" 读取它。',
    "no_records.first_sheet_empty.no_sheet_option": "第一个工作表“{sheet}”是空的，而只读取第一个工作表；“{other}”上的数据"
    "被忽略。请把那个工作表移到最前面（把它的标签拖到最左边）。",
    "no_records.first_sheet_not_data.no_sheet_option": "第一个工作表“{sheet}”的第 1 行没有评测集的列（session_id、query、"
    "reference_response……），而只读取第一个工作表；“{other}”上的数据被忽略。如果记录在“{other}”上，请把它移到最前面"
    "（把它的标签拖到最左边）。",
    "no_records.blank_lines": "文件中没有记录：只有空行。",
    "unreadable_file.too_large": "工作簿太大或嵌套太深，无法读取。请拆分数据。",
    "unreadable_file.damaged": "工作簿已损坏，无法读取（{error}）。请用 Excel 打开后重新保存。",
    "unreadable_file.duplicate_part": "工作簿中的部件“{part}”出现了两次（文件已损坏或被篡改）：无法判断 Excel 会读取哪一份，"
    "因此都不读取。请用 Excel 打开并重新保存。",
    "unreadable_file.repeated_row": "工作表“{sheet}”的第 {row} 行在文件中写了两次（或顺序颠倒）：工作簿已损坏，一份的单元格会"
    "覆盖另一份，Excel 会修复它。这些单元格不可信：请用 Excel 打开并重新保存。",
    "unreadable_file.shared_string": "工作表“{sheet}”的单元格 {cell} 指向第 {index} 个共享文本，这不可能存在：工作簿已损坏，"
    "该单元格会被读成另一个单元格的文本。请用 Excel 打开并重新保存。",
    "unreadable_file.damaged_plain": "工作簿已损坏，无法读取。请用 Excel 打开后重新保存。",
    "unreadable_file.cannot_open": "无法打开文件：{reason}。",
    "unreadable_file.xlsx_named_xls": "文件名是 .xls，但内容是 .xlsx 工作簿（Excel 2007 及以后）。请改名为 .xlsx。",
    "unreadable_file.encrypted": "工作簿设置了打开密码（已加密），无法读取单元格。请在 Excel 中打开，去掉密码（文件 → 信息 → "
    "保护工作簿 → 用密码进行加密，清空密码；WPS：文件 → 文档加密 → 密码加密）后重新保存。",
    "unreadable_file.encrypted_short": "工作簿设置了密码；请去掉密码。",
    "unreadable_file.xls_encrypted": ".xls 工作簿设置了打开密码（已加密），无法读取单元格。请在 Excel 中打开，去掉密码后重新保存。",
    "unreadable_file.xls_named_xlsx": "文件名是 .xlsx，但内容是旧版 .xls 工作簿（Excel 97-2003）。请改名为 .xls，或用 Excel "
    "打开后另存为 .xlsx（Excel 工作簿）。",
    "unreadable_file.html": "文件名是 {kind}，但内容是网页（HTML），有些系统会这样导出表格。"
    + _RESAVE
    + "（文件 → 另存为 → Excel 工作簿）。",
    "unreadable_file.xml": "文件名是 {kind}，但内容是 XML 文档（可能是 Excel 2003 XML）。" + _RESAVE + "。",
    "unreadable_file.text": "文件名是 {kind}，但内容是纯文本（CSV 或制表符分隔？），不是工作簿。" + _RESAVE + "。",
    "unreadable_file.other": "文件名是 {kind}，但不是 Excel 工作簿（开头字节为 {head}）；可能已损坏或是其他类型的文件。"
    + _RESAVE
    + "。",
    "unreadable_file.xls_damaged_kind": ".xls 工作簿已损坏或类型不受支持（{error}）。请用 Excel 打开后重新保存，最好存为 .xlsx。",
    "unreadable_file.xls_damaged": ".xls 工作簿已损坏（{error}）。请用 Excel 打开后重新保存，最好存为 .xlsx。",
    "unreadable_file.zip_damaged": ".xlsx 文件已损坏或不完整（不是完整的 zip 压缩包），可能在下载或复制时被截断。"
    "请重新获取文件，或用 Excel 打开后重新保存。",
    "unreadable_file.not_workbook_zip": "文件名是 .xlsx，但内容是{kind}，不是 Excel 工作簿。请在原程序中把表格导出为 Excel "
    "工作簿（.xlsx）。",
    "frag.zip_docx": " Word 文档（.docx）",
    "frag.zip_ods": " OpenDocument 文件（.ods/.odt）",
    "frag.zip_other": " zip 压缩包",
    "unreadable_file.zip_bomb": "工作簿中的“{part}”解压后将有 {size:,} 字节（是压缩后大小的 {ratio:,.0f} 倍）；"
    "formatkit 认为它过大或是压缩炸弹，拒绝读取。请把数据拆成较小的文件。",
    "unreadable_file.sheet_too_large": "工作表“{sheet}”延伸到第 {rows:,} 行、第 {column} 列：共 {cells:,} 个单元格，{why}。"
    "请删除远离表格的零散单元格（Ctrl+End 可跳到最后一个使用过的单元格），或把数据拆成较小的文件。",
    "frag.sparse_sheet": "但只有 {cells:,} 个单元格有内容：是远离表格的零散单元格",
    "frag.huge_sheet": "超过 formatkit 的读取上限（{limit:,}）",
    "unreadable_file.no_sheet": "工作簿中没有名为“{sheet}”的工作表；现有工作表：{sheets}。请给 --sheet 其中一个名字。",
    # --- Excel：工作簿与工作表 ------------------------------------------------------------------------
    "extra_sheet": '工作表“{sheet}”中有数据，但只读取第一个工作表（{first}）。请把记录移到第一个工作表、另存为单独的文件，或用 --sheet "{sheet}" 读取那个工作表。',
    "extra_sheet.no_sheet_option": "工作表“{sheet}”中有数据，但只读取第一个工作表（{first}）。请把记录移到第一个工作表，"
    "或另存为单独的文件。",
    "extra_sheet.notes": "工作表“{sheet}”不会被读取：只读取第一个工作表（{first}）。它的名称表明其中是写给人看的说明"
    "（formatkit fix 会把表头上方的标题行移到这样的工作表），无需修改；如果其中有记录，请把它们移到第一个工作表。",
    "frag.first_sheet": "“{sheet}”",
    "frag.first_sheet_hidden": "“{sheet}”，它是隐藏的：右键单击工作表标签 → 取消隐藏 即可看到",
    "merged_cells": "单元格 {span} 被合并了，只有第一个单元格有值。请取消合并（" + _UNMERGE + "），"
    "再把值填到每个单元格，{example}。",
    "frag.merged_example.session_id": "例如会话的每一行都写上 session_id",
    "frag.merged_example.system_prompt": "例如会话的每一行都写上相同的 system_prompt",
    "frag.merged_example.column": "让 {column} 列的每一行都有自己的值",
    "frag.merged_example.header": "第 1 行的每个表头各占一个单元格",
    "formula_without_value": "单元格中的公式从未保存过计算结果（文件由程序生成，而非 Excel），没有可读取的值。请用 Excel "
    "打开文件并保存，或直接写入值而不是公式。",
    "header_not_first_row": "第 {row} 行看起来才是表头（{names}），它上面有 {count} 行标题或说明；表头只从第 1 行读取，"
    "所以此工作表未被读取。请运行 `formatkit fix`（它会把第 {rows} 行移到单独的工作表），或删除第 {rows} 行，让表头成为第 1 行。",
    "missing_column": "第 1 行没有“{name}”列，而{why}。请在第 1 行添加“{name}”列（已找到的列：{known}）。{hint}",
    "frag.why.query": "每一行都需要用户的问题",
    "frag.why.reference_response": "在 {mode} 模式下要用参考答案给每条记录打分（只推理不打分请用 --mode infer-only）",
    "frag.why.response": "scored 模式要给已收集的回答打分",
    "frag.none": "无",
    "frag.header_below": "第 {row} 行看起来才是表头（{names}）：请删除它上面的行，让它成为第 1 行。",
    "unknown_column": "第 1 行中的列“{name}”无法识别。{hint}请改名；如果它不属于评测集，请删除该列。",
    "duplicate_column": "第 {letter} 列的表头也是“{name}”，与 {first} 列重复。请保留其中一列，删除或改名另一列（只读取靠前的"
    "那一列）。",
    "missing_header": "第 {letter} 列有数据，但第 1 行没有表头。请命名（{columns} 之一）或删除该列。",
    "header_not_normalized": "表头“{text}”被读作“{name}”；请准确写成“{name}”（小写、半角、无空格）。",
    "alias_column": "表头“{text}”作为“{name}”的别名被接受；请改名为“{name}”。",
    "empty_row": "第 {first} 行是数据行之间的空行，已跳过。请删除表格中间的空行。",
    "empty_row.span": "第 {first}-{last} 行是数据行之间的空行，已跳过。请删除表格中间的空行。",
    "date_cell": "单元格中是日期/时间（{shown}），不是文本：Excel 转换了输入的内容。请把单元格格式设为文本（"
    + _AS_TEXT
    + "），再重新输入。",
    "date_cell.typed": "单元格中是日期 {shown}，不是文本：输入 {typed} 时 Excel 会把它变成日期（并按日期显示）。如果想要的是 "
    "{typed}（分数、比例、比分），请把单元格格式设为文本（" + _AS_TEXT + "），再重新输入 {typed}。",
    "date_cell.typed_time": "单元格中是时间 {shown}，不是文本：输入 {typed} 时 Excel 会把它变成一天中的时刻（并按时间显示）。"
    "如果想要的是 {typed}（比例、比分），请把单元格格式设为文本（" + _AS_TEXT + "），再重新输入 {typed}。",
    "boolean_cell": "单元格中是逻辑值 {shown}，不是文本。请输入你想要的文本；若要保留单词 {shown}，请先把单元格格式设为文本"
    "（" + _AS_TEXT + "），或输入 '{shown}。",
    "error_cell": "单元格显示 Excel 错误值 {error}，通常是公式或引用出错。请修正公式，或把它替换成值（复制该单元格，再右键单击 → "
    "选择性粘贴 → 数值）。",
    "cell_too_long": "单元格有 {length:,} 个字符，超过 Excel 的上限 {limit:,}；Excel 会截断它。请缩短文本，或把这类记录放在 "
    "jsonl 文件中。",
    "number_format": "单元格显示“{shown}”（数字格式“{format}”），但存储的是 {stored}；按 Excel 显示的文本读取，{stored} "
    "保存在 meta.raw_values 中。如果要用存储的值，请把单元格格式设为“常规”（或设为文本后重新输入）。",
    "number_format.unrendered": "单元格以数字格式“{format}”存储 {stored}，formatkit 无法按该格式显示；按 {stored} 读取。"
    "如果 Excel 显示的是别的内容，请输入你想要的文本（先把单元格格式设为文本）。",
    "long_number": "单元格中是数字 {shown}，不是文本：Excel 只保留数字的前 15 位，在这里输入的更长的数字（编号、电话号码、"
    "卡号）已丢失其后的各位，读作 {shown}。请把单元格格式设为文本（" + _AS_TEXT + "），或先输入一个英文撇号"
    "（'123456789012345678），再重新输入。",
    "stale_formula_value": "单元格中公式保存的值（“{shown}”）被工作簿自身标记为过期（要求 Excel 打开时全部重算：pandas 和 "
    "xlsxwriter 会写入占位值 0）。请用 Excel 打开文件并保存，或直接写入值而不是公式。以“=”开头的文本须在前面加一个英文撇号 '。",
    "hidden_rows": "第 {rows} 行在 Excel 中{what}，但仍会像其他行一样被读取。请取消隐藏（全选 → 右键单击行号 → 取消隐藏；"
    "筛选请用 数据 → 清除）并检查，或删除不想参与评测的行。",
    "hidden_rows.many": "第 {rows} 行在 Excel 中{what}，但仍会像其他行一样被读取。请取消隐藏（全选 → 右键单击行号 → 取消隐藏；"
    "筛选请用 数据 → 清除）并检查，或删除不想参与评测的行。",
    "frag.hidden": "被隐藏",
    "frag.filtered": "被自动筛选过滤掉或被隐藏",
    "frag.spans_more": "{spans}，…（共 {count:,} 个）",
    "hidden_columns": "{columns} 列在 Excel 中被隐藏，但仍会被读取。请取消隐藏（全选 → 右键单击列标 → 取消隐藏）并检查。",
    "hidden_columns.many": "{columns} 列在 Excel 中被隐藏，但仍会被读取。请取消隐藏（全选 → 右键单击列标 → 取消隐藏）并检查。",
    "totals_row": "第 {rows} 行是 Excel 表格的汇总行，会被当作一条记录读取。请关闭汇总行（表设计 → 汇总行；WPS：表格工具 → "
    "汇总行）或删除它。",
    "totals_row.many": "第 {rows} 行是 Excel 表格的汇总行，会被当作记录读取。请关闭汇总行（表设计 → 汇总行；WPS：表格工具 → "
    "汇总行）或删除它们。",
    # --- jsonl：行 ------------------------------------------------------------------------------------
    "not_utf8": "文件不是 UTF-8 编码；看起来是 {encoding}{more}。请另存为 UTF-8（记事本：文件 → 另存为 → 编码 选“UTF-8”），"
    "或用命令 `iconv -f {iconv} -t UTF-8 in.jsonl > out.jsonl`。",
    "frag.lines_in_all": "（共 {count} 行）",
    "utf8_bom": "文件以 UTF-8 字节顺序标记（BOM）开头（Windows 记事本会加上）。这里已跳过它，但有些平台会拒收：请另存为不带 "
    "BOM 的 UTF-8（记事本：文件 → 另存为 → 编码 选“UTF-8”，不要选“带有 BOM 的 UTF-8”）。",
    "blank_line": "记录之间有空行；请删除。",
    "invalid_json": "该行不是合法的 JSON：{where}{detail}。{hint}",
    "frag.json_error.value": "应当是一个值（字符串要加双引号；true、false、null 要小写）",
    "frag.json_error.property_name": "应当是用双引号括起的键名（单引号或不加引号都不行）",
    "frag.json_error.comma": "缺少逗号",
    "frag.json_error.colon": "缺少冒号（键名后要有冒号）",
    "frag.json_error.extra_data": "起还有多余的内容（前面的对象已经结束）",
    "frag.json_error.unterminated_string": "开始的字符串缺少结尾的双引号",
    "frag.json_error.control_character": "有未转义的控制字符（换行或制表符请写成 \\n、\\t）",
    "frag.json_error.escape": "有无效的转义（反斜杠 \\ 要写成 \\\\）",
    "frag.json_error.unicode_escape": "有无效的 \\uXXXX 转义",
    "frag.at_column": "第 {column} 列",
    "frag.json_one_object": "每行必须是一个完整的 JSON 对象；一条记录不能跨行。",
    "frag.json_trailing_comma_line": "对象后面多了逗号？请删除行尾的逗号。",
    "frag.json_trailing_comma": "“}}”或“]”前面多了逗号？JSON 不允许，请删除。",
    "frag.json_array": "这看起来是 JSON 数组或格式化（多行）的 JSON；jsonl 要求每行一个对象。",
    "line_not_object": '该行是 JSON {type}，但每行必须是一个对象（{{"prompt": ..., "answer": ...}}）。',
    "non_finite_number": "{value} 不是合法的 JSON。请写 null；如需保留，请写成字符串。",
    "duplicate_key": "键“{key}”在同一个对象中出现了两次；JSON 读取器只会保留其中一个。请删除一个。",
    "duplicate_key.alias": "同时给出了“{key}”和“{name}”；它们表示同一个字段。请保留“{name}”。",
    "lone_surrogate": "“{field}”含有转义 {escape}，是缺了另一半的 UTF-16 代理项：它不是字符，任何 UTF-8 文件都无法保存它。"
    "文本可能是在表情符号中间被截断的；请删除该转义或补全这一对。",
    "lone_surrogate.string": "一个字符串含有转义 {escape}，是缺了另一半的 UTF-16 代理项：它不是字符，任何 UTF-8 文件都无法"
    "保存它。文本可能是在表情符号中间被截断的；请删除该转义或补全这一对。",
    "line_too_long": "这一行有 {size:,} 字节，超过一条记录允许的 {limit}；已跳过。是没有换行的文件，还是写在一行里的 JSON 数组？"
    "jsonl 需要每行一个对象。",
    "nested_too_deep": "这一行的数组和对象嵌套超过 {limit} 层，比一条记录能写出的更深；已跳过。请把该值展平，或存为字符串。",
    "number_too_large": "“{field}”是 {digits} 位整数，超出 JSON 读取器能精确保存的 64 位范围（±9.2e18）；它会悄悄变成近似值。"
    "请使用更小的数，或写成字符串。",
    "number_too_large.number": "这个数是 {digits} 位整数，超出 JSON 读取器能精确保存的 64 位范围（±9.2e18）；它会悄悄变成"
    "近似值。请使用更小的数，或写成字符串。",
    "mixed_shapes": "该行是{shape}，但文件开头是{first}。请把不同格式的行放在不同的文件中。",
    "frag.shape.jsonl-single-turn": '单轮格式（{{"prompt": ..., "answer": ...}}）',
    "frag.shape.jsonl-multi-turn": '多轮格式（{{"messages": [...], "answer": ...}}）',
    "frag.shape.canonical": '规范格式（{{"session_id": ..., "messages": [..., {{"role": "assistant", ...}}]}}）',
    "unknown_key": "{shape}的行中有无法识别的键“{key}”。{hint}",
    "unknown_key.message": "消息中有无法识别的键“{key}”；一条消息只包含“role”和“content”。{hint}",
    "unknown_key.canonical": "“{field}”不属于规范记录；请删除它或移到“meta”中。",
    "alias_key": "“{key}”作为“{name}”的别名被接受；请改名为“{name}”。",
    "missing_field": "该行没有必填字段“{name}”。",
    "missing_field.messages": '该行没有“messages”：请把对话写成 {{"role", "content"}} 的列表。',
    "missing_field.role": "该消息没有“role”。",
    "missing_field.content": "该消息没有“content”。",
    "missing_field.canonical": "缺少“{field}”；规范记录要求有它。",
    "invalid_type": "“{field}”必须是{expected}，而不是 JSON {type}{hint}。",
    "frag.write_as_string": '（写成 "{value}"）',
    "invalid_type.canonical": "“{field}”必须是{expected}，而不是{value}。",
    "invalid_type.pydantic": "“{field}”：{error}。",
    "invalid_type.result": "{name} 必须是{expected}，而不是 {value}。请修正该值或清空。",
    "frag.expect.text": "文本",
    "frag.expect.json_string": "文本（JSON 字符串）",
    "frag.expect.labels": "由标签组成的对象",
    "frag.expect.usage": ' JSON 对象（{{"total_tokens": 12}}）',
    "frag.expect.messages": "消息列表",
    "frag.expect.message": '对象 {{"role": ..., "content": ...}}',
    "frag.expect.integer": "整数",
    "frag.expect.whole_number": "整数（不带小数）",
    "frag.expect.number": "数字",
    "frag.expect.boolean": " true 或 false",
    "frag.expect.list": "列表",
    "frag.expect.object": "对象",
    "frag.expect.string_or_list": "字符串或字符串列表",
    "frag.expect.string_list_4": "是最多 4 个字符串的列表",
    "frag.expect.int64": "是 64 位以内的整数（±9,223,372,036,854,775,807）",
    "frag.expect.at_least": "不小于 {minimum:g}",
    "frag.expect.between": "在 {minimum:g} 到 {maximum:g} 之间",
    "frag.expect.greater_than": "大于 {minimum:g}",
    "frag.expect.either": "是 {value}，或{other}",
    "frag.expect.object_example": '对象，例如 {{"enable_thinking": false}}',
    "frag.or": "{first}或{second}",
    "frag.json.null": "null",
    "frag.json.boolean": "布尔值",
    "frag.json.number": "数字",
    "frag.json.string": "字符串",
    "frag.json.array": "数组",
    "frag.json.object": "对象",
    "frag.value.number": "数字 {value}",
    "frag.value.string": "字符串 {value}",
    "frag.value.list": "列表",
    "frag.value.object": "对象",
    # --- 对话 -----------------------------------------------------------------------------------------
    "empty_text": "query 为空；每一行都需要用户的问题。请填写，或删除该行。",
    "empty_text.field": "“{name}”为空；请写出这一轮的文本。",
    "empty_text.message": "{role} 消息的 content 为空；请写出这一轮的文本。",
    "empty_text.canonical": "{role} 消息的 content 为空。",
    "empty_messages": '“messages”为空；至少需要一条 {{"role": "user", "content": ...}}。',
    "empty_messages.canonical": "“messages”至少需要一轮用户消息和目标 assistant 轮。",
    "invalid_role": "角色“{role}”不是 system、user、assistant 之一。{hint}",
    "invalid_role.canonical": "“{field}”必须是 system、user 或 assistant。",
    "misplaced_system": "system 消息只能是第一条消息；请把它移到最前面，或并入第一条 system 消息。",
    "misplaced_system.canonical": "system 消息只能是第一条消息。",
    "last_message_not_user": "最后一条消息是“{role}”，但对话必须以模型要回答的用户轮结束。{fix}",
    "frag.move_reply_to_answer": "请把最后的 assistant 回复移到“answer”。",
    "frag.add_question": "请在它后面加上用户的问题。",
    "target_not_assistant": "规范记录的最后一条消息必须是目标 assistant 轮，包含“reference_response”和“responses”。",
    # --- session_id -----------------------------------------------------------------------------------
    "invalid_session_id": "session_id 是{problem}；它必须是整数（0、1、2……）。session_id 相同的行组成一段多轮对话。",
    "frag.sid.boolean": "逻辑值 {value}",
    "frag.sid.too_large": " {value}，作为编号太大",
    "frag.sid.fraction": " {value}，带有小数",
    "frag.sid.text": "文本“{value}”",
    "frag.sid.date": "日期/时间（{value}）",
    "invalid_session_id.jsonl": "session_id 必须是整数或字符串，而不是 JSON {type}。",
    "missing_session_id": "第 {row} 行没有 session_id，但这是多轮文件：每一行都需要所属对话的编号。请写上它所属会话的编号，"
    "或一个新编号。",
    "duplicate_session_id": "session_id {sid} 已在第 {first} 行使用，且两行都有自己的 reference_response。如果它们是不同的记录，"
    "请各用一个 session_id（或留空 session_id）；如果它们是同一段多轮对话，请只在最后一行保留参考答案，把之前的回答写在 "
    "response 中。",
    "duplicate_session_id.jsonl": "session_id {sid!r} 已在第 {first} 行使用；每条记录需要自己的编号。",
    "duplicate_session_id.dataset": "session_id {sid!r} 已在数据集“{dataset}”的第 {first} 行使用；每条记录需要自己的编号。",
    "duplicate_session_id.files": "数据集“{dataset}”的 session_id {sid!r} 已被 {first} 使用。两者会进入同一个数据集（数据集以文件名命名，"
    "或由 meta.dataset 指定），其中每条记录需要自己的编号：如果一个文件是另一个的副本，请去掉它；否则请重命名其中一个文件、"
    "给它的记录设置自己的 meta.dataset，或重新编号它的 session_id。",
    "duplicate_session_id.files_no_meta": "session_id {sid!r} 已被 {first} 使用。不带 meta（--no-meta）时输出不区分数据集，"
    "因此每条记录在整个输出中都需要自己的编号：请保留 meta，或重新编号 session_id。",
    "frag.place.line": "{file} 第 {line} 行",
    "frag.place.row": "{file} 工作表“{sheet}”第 {row} 行",
    "mixed_session_ids": "session_id {sid} 重复出现（第 {rows} 行），因此这是多轮文件，但有 {count} 行没有 session_id（第 "
    "{without} 行）。文件要么是单轮（session_id 可选且唯一），要么是多轮（每一行都有 session_id）。",
    "mixed_session_ids.jsonl": "第 {given} 行给出了 session_id {sid}，而没有 session_id 的一行（第 {without} 行或它开始的一段）"
    "也会成为记录 {sid}（以位置作编号）：两条记录会共用这个编号。请给每一行都写 session_id，或都不写。",
    "session_not_consecutive": "session_id {sid} 出现在 {count} 行，且被其他行隔开：第 {rows} 行。编号重复会让文件被当作"
    "多轮文件，这些行按表格顺序组成一段对话；这些行上与会话有关的其他问题都源于此。如果这是单轮评测集，编号必须唯一（或留空 "
    "session_id）；如果它们确实是一段对话，请把这些行挪到一起，按对话顺序从上到下排列。",
    "system_prompt_mismatch": "system_prompt 只在会话的第一行（第 {first} 行）填写；第 {rows} 行为空。一段对话只有一个系统提示："
    "请在会话的每一行写相同的文本。",
    "system_prompt_mismatch.differs": "第 {rows} 行的 system_prompt 与同一会话第 {first} 行的不同（{found} 与 {expected}）。"
    "一段对话只有一个系统提示：请在会话的每一行写相同的文本。",
    "frag.empty": "空",
    "parameters_mismatch": "第 {row} 行的 parameters 与会话最后一行（第 {last} 行）不同，而最后一行决定整段对话的参数。"
    "请让前面的行留空，或与最后一行相同。",
    # --- 各模式下的参考答案与回答 -------------------------------------------------------------------------
    "missing_reference": "参考答案为空；{mode} 模式要用它打分。请填写，或用 --mode infer-only 只推理不打分。",
    "missing_reference.canonical": "目标轮没有 reference_response；{mode} 模式要用它打分。",
    "unused_reference": "给出了参考答案，但 infer-only 模式不打分，所以不会用到它。要用它打分请用 --mode infer-eval，否则请留空。",
    "misplaced_reference": "第 {row} 行填写了 reference_response，但只有会话的最后一行（第 {last} 行）会被打分。请把之前的"
    "回复移到 response 列（它会成为对话历史），或清空该单元格。",
    "unexpected_response": "已经填写了回答，但 {mode} 模式会生成它。请留空，或用 --mode scored 给你收集的回答打分。",
    "missing_response": "回答为空；scored 模式给已收集的回答打分。请填写模型的回答，或用 --mode infer-eval 让 formatkit 运行模型。",
    "missing_response.canonical": "目标轮没有带 content 的回答；scored 模式给已收集的回答打分。请先运行 `formatkit run`，"
    "或填写 responses[].content。",
    # --- parameters -----------------------------------------------------------------------------------
    "invalid_parameters": 'parameters 不是字典：{text!r}。{hint}请写成 JSON（{{"temperature": 0.7, "max_tokens": 1024}}）'
    "或 Python 字典（{{'temperature': 0.7}}）。",
    "frag.full_width": "其中有中文输入法打出的全角标点：{found}。",
    "frag.full_width_char": "{char}（应为 {plain}）",
    "invalid_parameters.type": "parameters 必须是推理参数组成的对象，而不是 {type}。",
    "invalid_parameters.jsonl": '“parameters”必须是 JSON 对象，例如 {{"temperature": 0.7}}，而不是 JSON {type}。',
    "unknown_parameter": "parameters 中有无法识别的键“{key}”。{hint}",
    "invalid_parameter_type": "parameters 的“{key}”必须是{expected}，而不是 {value}。",
    "parameter_out_of_range": "parameters 的“{key}”是 {value}，超出范围：必须{allowed}。",
    "engine_parameter": (
        "parameters 中的 {names} 不是 OpenAI API 的参数。vLLM 和 SGLang 接受这类参数，formatkit 会原样发送；"
        "OpenAI 自己的 API 会拒绝带这些参数的请求，所以只在支持它们的服务上保留。"
    ),
    "frag.list_sep": "，",
    "frag.did_you_mean": "是不是“{name}”？",
    "frag.nested_parameter": 'vLLM 和 SGLang 要求把它写在“{parent}”里：{{"{parent}": {{"{key}": false}}}}。',
    "frag.known_names": "可用的名称：{names}。",
    # --- formatkit fix：所做的修改（fix.<修改代码>）、输出的各行（fix.ui.*）、填入的词（fix.word.*） ---
    "fix.sheet_moved": '已将数据所在的工作表"{sheet}"从第 {position} 个移到最前：只读取第一个工作表',
    "fix.title_rows_moved": '已将表头上方的第 {rows} 行（标题或说明：{text}）移到新工作表"{notes}"；表头现在是第 1 行',
    "fix.header_renamed": '表头"{before}"已改为"{after}"（{how}）',
    "fix.key_renamed": '键"{before}"已改为"{after}"（{how}）',
    "fix.cells_unmerged": "已取消合并 {range}，并在其 {count} 个单元格中都填入 {value}",
    "fix.parameters_rewritten": "parameters {before} 已改写为 JSON：{after}",
    "fix.id_trimmed": "session_id {before} 已去掉首尾空白：{after}",
    "fix.formula_to_value": "公式 {formula} 已替换为其保存的值 {value}（重写的工作簿无法保留公式的缓存值）",
    "fix.bom_removed": "已删除文件开头的字节顺序标记（BOM）",
    "fix.reencoded": "已将文件从 {encoding} 解码，并以 UTF-8 写出（内容如：{sample}）",
    "fix.xls_converted": "已将 .xls 工作簿改写为 .xlsx：保留值、合并区域、数字格式、列宽以及隐藏的行和列；不保留字体、颜色和边框",
    "fix.parts_lost": "副本无法保留原文件中的 {parts}（openpyxl 不支持）；原文件未改动",
    "fix.ui.head": "{source} -> {output}：{count} 处修改",
    "fix.ui.head_dry": "{source}：{count} 处修改（试运行：未写入 {output}）",
    "fix.ui.none": "{source}：无需修复；{output} 是原文件的副本",
    "fix.ui.none_dry": "{source}：无需修复（试运行：未写入任何文件）",
    "fix.ui.unread": "{source}：无法读取以进行修复；未写入 {output}",
    "fix.ui.after": "副本的校验结果：",
    "fix.ui.after_dry": "副本的校验结果将是：",
    "fix.ui.input": "原文件的校验结果：",
    "fix.ui.left": "还有 {errors} 个错误无法确定地自动修复。请按上面的提示在 {output} 中修改。",
    "fix.word.normalized": "大小写、全角或空格",
    "fix.word.alias": "别名",
    "fix.word.chinese": "中文名",
    "fix.word.drawings": "绘图（形状、图片、图表）",
    "fix.word.media": "图片",
    "fix.word.charts": "图表",
    "fix.word.vba": "宏",
    "fix.word.pivots": "数据透视表",
    "fix.word.slicers": "切片器",
    "fix.word.other": "其他部件",
    "fix.word.list_sep": "、",
    # --- 打印的报告 -------------------------------------------------------------------------------------
    "ui.place_row": "第 {row} 行",
    "ui.place_line": "第 {line} 行",
    "ui.error": "错误",
    "ui.warning": "警告",
    "ui.more_all": "…… 还有 {count:,} 个（--all 可全部列出）",
    "ui.more_kept": "…… 还有 {count:,} 个（只保留了前面的；--json 中有总数）",
    "ui.file_head": "{path}：{status}（{format}，{records} 条记录，{errors} 个错误，{warnings} 个警告）",
    "ui.ok": "通过",
    "ui.invalid_file": "不通过",
    "ui.unknown_format": "未知格式",
    "ui.verdict_valid": "{files} 个文件通过：{errors} 个错误，{warnings} 个警告",
    "ui.verdict_invalid": "{files} 个文件不通过：{errors} 个错误，{warnings} 个警告",
    "ui.wrote_records": "已把 {records} 条记录写入 {output}",
    "ui.nothing_written": "没有写入 {output}：请先修正上面的错误",
    # --- 每个代码的一句话概要 -----------------------------------------------------------------------------
    "summary.unsupported_extension": f"只能读取 {_READS} 文件。",
    "summary.too_many_files": "平台每次上传最多 10 个文件。",
    "summary.too_many_rows": "平台每个文件最多 1,000 行（Excel 数据行或 jsonl 行）。",
    "summary.empty_file": "文件中什么都没有。",
    "summary.no_records": "文件中没有数据行。",
    "summary.unreadable_file": "文件完全无法读取（损坏、不完整或是其他格式）。",
    "summary.extra_sheet": "只读取第一个工作表；另一个工作表中有数据。",
    "summary.merged_cells": "合并单元格只有第一个单元格有值，其余单元格的值被隐藏。",
    "summary.formula_without_value": "公式单元格没有保存计算结果。",
    "summary.missing_column": "表头行缺少必需的列。",
    "summary.header_not_first_row": "表头不在第 1 行，而在标题或说明行之下。",
    "summary.unknown_column": "表头中有无法识别的列名。",
    "summary.duplicate_column": "两个表头单元格是同一列。",
    "summary.missing_header": "某列有数据但没有表头。",
    "summary.header_not_normalized": "表头要去掉空格或统一大小写后才与已知列名相同。",
    "summary.alias_column": "表头用了已知列的别名。",
    "summary.empty_row": "数据行之间有空行。",
    "summary.date_cell": "文本列中出现了日期。",
    "summary.boolean_cell": "文本列中出现了 TRUE/FALSE。",
    "summary.error_cell": "单元格中是 Excel 错误值（#N/A、#REF! 等）。",
    "summary.cell_too_long": "单元格超过 Excel 的 32,767 个字符上限。",
    "summary.number_format": "数字单元格显示的文本与存储的值不同（数字格式）。",
    "summary.long_number": "文本列中有超过 15 位的数字：Excel 只保留 15 位。",
    "summary.stale_formula_value": "公式保存的值被工作簿标记为过期（fullCalcOnLoad）。",
    "summary.hidden_rows": "表格中有行在 Excel 中被隐藏或筛选掉，但仍会被读取。",
    "summary.hidden_columns": "表格中有列在 Excel 中被隐藏，但仍会被读取。",
    "summary.totals_row": "数据行中有 Excel 表格的汇总行。",
    "summary.not_utf8": "文件不是 UTF-8 文本。",
    "summary.utf8_bom": "文件以字节顺序标记（BOM）开头。",
    "summary.blank_line": "文件中有空行。",
    "summary.invalid_json": "某行不是合法的 JSON。",
    "summary.line_not_object": "某行是合法的 JSON，但不是对象。",
    "summary.non_finite_number": "NaN 或 Infinity 不是 JSON。",
    "summary.duplicate_key": "同一个对象中同一个键出现了两次。",
    "summary.lone_surrogate": "字符串中有孤立的 UTF-16 代理项（\\ud800），它不是文本。",
    "summary.line_too_long": "jsonl 的一行超过一条记录允许的长度（64 MiB）；已跳过。",
    "summary.nested_too_deep": "jsonl 的一行中数组和对象的嵌套深于一条记录允许的层数（254 层）。",
    "summary.number_too_large": "整数超出 JSON 读取器能精确保存的 64 位范围。",
    "summary.mixed_shapes": "同一个文件中有不同格式的行。",
    "summary.unknown_key": "对象中有不属于该格式的键。",
    "summary.alias_key": "键用了格式名称的别名。",
    "summary.missing_field": "缺少必填字段。",
    "summary.invalid_type": "字段的值类型不对。",
    "summary.empty_text": "必填文本为空或只有空白。",
    "summary.empty_messages": "对话中没有消息。",
    "summary.invalid_role": "消息角色不是 system、user 或 assistant。",
    "summary.misplaced_system": "system 消息出现在第一条消息之后。",
    "summary.last_message_not_user": "对话没有以用户轮结束。",
    "summary.target_not_assistant": "规范记录没有以目标 assistant 轮结束。",
    "summary.invalid_session_id": "session_id 不是整数。",
    "summary.missing_session_id": "多轮文件的某行没有 session_id。",
    "summary.duplicate_session_id": "两条记录共用一个 session_id。",
    "summary.mixed_session_ids": "有的行有 session_id、有的没有，而编号又有重复。",
    "summary.session_not_consecutive": "某个会话的行与另一个会话的行交错。",
    "summary.system_prompt_mismatch": "同一会话的各行系统提示不同。",
    "summary.parameters_mismatch": "会话前面某行的 parameters 与最后一行不同。",
    "summary.missing_reference": "目标轮没有参考答案，而该模式需要它。",
    "summary.unused_reference": "infer-only 模式下给出了参考答案，不会被使用。",
    "summary.misplaced_reference": "参考答案写在了会话最后一行以外的行上。",
    "summary.unexpected_response": "目标轮已经有回答，而该模式会推理生成它。",
    "summary.missing_response": "目标轮没有回答，而 scored 模式需要它。",
    "summary.invalid_parameters": "parameters 不是字典（JSON 对象或 Python 字典）。",
    "summary.unknown_parameter": "parameters 中有无法识别的键。",
    "summary.engine_parameter": "parameters 中有推理引擎（vLLM、SGLang）的参数，不是 OpenAI 的参数。",
    "summary.invalid_parameter_type": "参数值的类型不对。",
    "summary.parameter_out_of_range": "参数值超出允许范围。",
}

# --- what the commands print when they stop (formatkit/cli/_failures.py) ------------------------------
MESSAGES.update(
    {
        "ui.failed": "formatkit：错误：{error}",
        "ui.failed_nothing_written": "formatkit：错误：{error}；没有写入任何内容",
        "ui.proxy_unsupported": "formatkit：错误：{variable}={proxy} 指向 SOCKS 代理，但没有安装 httpx 的 SOCKS 支持：请安装（pip install 'httpx[socks]'），或取消设置 {variable}；没有发送任何请求",
        "ui.judge_hint": "请检查裁判模型的端点",
        "ui.run.locked": "formatkit run：{error}；没有发送任何请求。",
        "ui.run.stopped": "formatkit run：已停止：{error}\n  {hint}。\n  {kept}；没有写入 {output}。重新运行同一命令即可继续：已完成的记录不会再次发送。",
        "ui.run.io_error": "formatkit run：因读写错误停止：{error}；已完成的记录保存在 {journal} 中；重新运行即可继续。",
        "ui.run.terminated": "formatkit run：已终止（SIGTERM）。{kept}；重新运行即可继续。",
        "ui.run.interrupted": "formatkit run：已中断。{kept}；重新运行即可继续。",
        "ui.run.kept_nothing": "{journal} 中没有记下任何内容",
        "ui.run.kept": "本次运行完成的 {done} 条记录保存在 {journal} 中",
        "ui.run.kept_errors": "（另有 {errors} 条以错误结束，将会重试）",
        "ui.run.kept_attempts": "，共 {attempts} 次 HTTP 尝试",
        "ui.eval.locked": "formatkit eval：{error}；没有发送任何请求。",
        "ui.eval.invalid": "formatkit eval：流程已停止：{error}\n  上面的问题说明了要修改什么。\n  重新运行同一命令即可继续：已完成的部分不会再次发送。",
        "ui.eval.judge_stopped": "formatkit eval：评判已停止：{error}\n  {judge_hint}。\n  重新运行同一命令即可继续：已完成的部分不会再次发送。",
        "ui.eval.run_stopped": "formatkit eval：推理已停止：{error}\n  {hint}。\n  重新运行同一命令即可继续：已完成的部分不会再次发送。",
        "ui.eval.terminated": "formatkit eval：已终止（SIGTERM）。重新运行同一命令即可继续：已完成的部分不会再次发送。",
        "ui.eval.interrupted": "formatkit eval：已中断。重新运行同一命令即可继续：已完成的部分不会再次发送。",
        "ui.score.judge_stopped": "formatkit score：已停止：{error}\n  {hint}。\n  本次买到的 {bought} 个裁决保存在 {journal} 中（其中 {reused} 个取自该文件）；没有写入输出。重新运行同一命令即可继续：不会重复购买裁决。",
        "ui.score.worker_failed": "formatkit score：{error}\n没有写入任何内容。",
        "ui.score.terminated": "formatkit score：已终止（SIGTERM）；{kept}重新运行同一命令即可继续。",
        "ui.score.interrupted": "formatkit score：已中断；{kept}重新运行同一命令即可继续。",
        "ui.score.kept": "目前买到的裁决保存在 {journal} 中；",
        "ui.export.read_back": "formatkit export：{output} 的表格按 {mode} 模式读回时会被拒绝（见上面的问题），所以没有写入任何内容。既没有回答也没有错误的记录还没有运行：请先完成运行（重新运行同一条 `formatkit run` 或 `eval` 即可继续）。",
        "ui.export.not_written": "formatkit export：{error}；没有写入任何内容",
        "ui.merge.refused": "formatkit merge：无法合并 {count} 个部分；没有写入任何内容：{problems}",
        "ui.merge.not_written": "formatkit merge：{error}",
        "ui.convert.not_written": "formatkit convert：{error}；没有写入任何内容",
        "ui.wrote": "已写入 {output}",
        "ui.run.summary.head": "run：{records} 条记录已写入 {output}：{finished} 条完成，{with_errors} 条有错误",
        "ui.run.summary.requests": "  本次运行：为 {sent_records} 条记录发送了 {requests} 个请求{with_retries}；{resumed} 条取自日志；{nothing_to_do} 条无需发送",
        "ui.run.summary.attempts": "（连同重试共 {attempts} 次 HTTP 尝试）",
        "ui.run.summary.errors": "  错误按类型：{kinds}",
        "ui.run.summary.replies": "  回答：{empty_replies} 个为空（没有内容，无从评分），{cut_off} 个在 token 上限处被截断（finish_reason: length）",
        "ui.run.summary.retry_empty": "  用 --retry-empty N 重新运行，可再次询问空回答（推理模型可能需要更大的 max_tokens）",
        "ui.run.summary.tokens": "  token：提示 {prompt}，生成 {completion}，合计 {total}",
        "ui.run.summary.stale": "  注意：日志中有 {stale_journal_entries} 条与输入或设置不符（之后有改动），已忽略",
        "ui.run.summary.note": "  注意：{note}",
        "ui.run.summary.retry_errors": "  重新运行同一命令即可重试以错误结束的记录",
        "ui.run.dry_run": "试运行：将为 {records_with_work} 条记录发送 {requests} 个请求（{records} 条中已有 {already_finished} 条在日志中完成）；没有发送任何请求",
        "ui.auto.free_text": "参考答案是自由文本或缺失（{kinds}）：规则无法评分——请用 --metric judge",
        "ui.progress.line": "{label}：{done}/{total} {unit}{share}，{rate}/秒，{errors} 条有错误，剩余 {eta}",
        "ui.progress.records": "条记录",
        "ui.progress.responses": "个回答",
        "ui.eval.judge_needed": "formatkit eval：{dataset}：需要裁判模型——{reason}；未评分（给出 --judge-base-url 和 --judge-model 即可评判）",
        "ui.score.judge_needed": "formatkit score：{dataset}：需要裁判模型——{reason}；未评分",
        "ui.score.nothing_scored": "formatkit score：没有任何回答能够评分",
        "ui.report.unscored": "formatkit report：{dataset}：没有任何回答评过分；请先对它运行 `formatkit score`，再对生成的文件做报告",
        "ui.export.note": "formatkit export：{note}",
        "ui.export.wrote": "已把 {rows} 行写入 {output}（输入按 {mode} 模式读取{why}）",
        "ui.export.why_infer_eval": "：并非每个目标轮都有回答，有的推理失败或尚未运行",
        "ui.export.why_infer_only": "：有的目标轮没有参考答案",
        "ui.merge.merged": "已把 {parts} 个部分合并到 {output}：{records} 条记录，按输入顺序",
        "ui.api_key_cleaned": "formatkit {command}：警告：${env}：{warning}",
        "ui.api_key_unset": "formatkit {command}：警告：--api-key-env {env}：该变量没有设置（或为空）；请求将不带 API 密钥发送",
        "ui.report.same_file": "formatkit report：{path} 与 {first} 是同一个文件：只读取一次，其记录只计一次",
        "ui.report.same_content": "formatkit report：{path} 的内容与 {first} 完全相同（副本）：只读取一次，其记录只计一次",
        "ui.fix.refused": "formatkit fix：{source}：{why}；未写入 {output}（validate 能读取它）",
        "frag.fix_refused.styles": "有 {count:,} 个单元格样式，超过 fix 能重写的上限（{limit:,}，即 Excel 自身的上限）：请用 Excel 或 LibreOffice 打开，清除未使用的格式，重新保存后再对保存后的文件运行 fix",
        "frag.fix_refused.merges": "工作表“{sheet}”有 {count:,} 个合并区域，超过 fix 能重写的上限（{limit:,}）：请取消合并单元格（全选后关闭“合并后居中”），保存后再对保存后的文件运行 fix",
        "frag.fix_refused.merge_size": "工作表“{sheet}”：合并区域 {range} 覆盖 {cells:,} 个单元格，超过 fix 能重写的上限（{limit:,}）：请取消该合并，或只合并有数据的行，保存后再对保存后的文件运行 fix",
        "ui.fix.cannot_repair": "formatkit fix：{source}：无法打开以进行修复（{error}），尽管 validate 能读取它；未写入 {output}：请用 Excel 或 LibreOffice 打开并重新保存，再对保存后的文件运行 fix",
        "ui.judge_check.nothing": "formatkit judge-check：没有任何人工标注对上裁判的判定（{labels} 条标注，{unmatched} 条找不到记录）：请检查 session_id 和数据集，并确认 SCORED 是由裁判模型评分的",
        "ui.score.review": "formatkit score：已审阅的表格：{changed} 个分数有变动，其余分数保持原样（没有为它们请求裁判）",
        "ui.score.review_human": "  {dataset}，会话 {session_id}{sample}：人工评分 {human}（原为 {before}）",
        "ui.score.review_edited": "  {dataset}，会话 {session_id}{sample}：内容已修改，重新评分（原为 {before}）",
        "ui.score.review_refused": "  {dataset}，会话 {session_id}{sample}：human_score {human} 超出该分数的量程：已忽略，分数仍为 {before}",
    }
)
