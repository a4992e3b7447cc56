"""The dice notation grammar (lark, LALR), kept as a string so importing needs no file I/O.

Forms accepted, case-insensitive: ``3d6+2``, ``d20``, ``4dF``, ``d%``; keep/drop ``4d6kh3``, ``4d6k3``,
``2d20kl1``, ``4d6dl1``, ``4d6d1``, ``4d6dh1``; explode ``3d6!`` (on the highest face), ``3d10!>9``,
``3d10!10``; reroll once ``4d6r1``, ``4d6r<3`` (``ro`` is an alias), reroll while ``4d6rr<2``; count
successes ``6d10>=7`` / ``6d10>7`` and subtract failures ``6d10>=7f1``; ``+ - *``, parentheses, integer
constants; comma-separated parts; a label ``[ataque] 1d20+5`` or ``1d20+5 # ataque``.

Comparisons mean what they say: ``>7`` is strictly above 7 (Roll20 reads it as 7 or more; the canonical
text always shows the exact operator, so nobody is misled). After ``!``, ``r`` and ``f`` a bare number
means "equal to"; ``!>5>3`` explodes above 5 and counts successes above 3. That is also how the LALR
table settles the one ambiguity of the grammar (``3d6!>4``: a comparison right after ``!`` or ``r``
belongs to it; lark resolves the shift/reduce conflict as a shift), and why the canonical text writes
``3d6!6>4`` for "explode on 6, count above 4".
"""

GRAMMAR = r"""
start: part ("," part)*

part: BRACKET_LABEL? sum HASH_LABEL?

?sum: product
    | sum "+" product   -> add
    | sum "-" product   -> sub

?product: unary
    | product "*" unary -> mul

?unary: atom
    | "-" unary         -> neg
    | "+" unary

?atom: dice
    | INT               -> constant
    | "(" sum ")"

dice: INT? D sides modifier*

sides: INT              -> numeric_sides
    | F                 -> fudge_sides
    | "%"               -> percentile_sides

modifier: "!" compare?          -> explode
    | REROLL compare?           -> reroll_once
    | REROLL_REPEAT compare?    -> reroll_repeat
    | KEEP_HIGH INT?            -> keep_high
    | KEEP_LOW INT?             -> keep_low
    | DROP_HIGH INT?            -> drop_high
    | (DROP_LOW | D) INT?       -> drop_low
    | CMP INT                   -> success
    | F compare                 -> failure

compare: CMP? INT

CMP: ">=" | "<=" | ">" | "<" | "="
D: /d/i
F: /f/i
REROLL: /ro?/i
REROLL_REPEAT.2: /rr/i
KEEP_HIGH: /kh?/i
KEEP_LOW.2: /kl/i
DROP_HIGH.2: /dh/i
DROP_LOW.2: /dl/i
INT: /[0-9]+/
BRACKET_LABEL: /\[[^\[\]\r\n]*\]/
HASH_LABEL: /#[^,\[\]\r\n]*/

%ignore /[ \t\r\n]+/
"""
