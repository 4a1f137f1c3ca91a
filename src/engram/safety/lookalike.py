"""Letters of other scripts that look like Latin ones, folded to them before the injection rules
read a line (docs/safety.md "Prompt injection").

Compatibility folding (NFKC) turns full-width or mathematical letters into plain ones, but a
Cyrillic `і`, a Greek `ο` or an Armenian `օ` is another letter that only looks the same: `Іgnore
all previous instructіons` reads as the hijack to a model and to a reviewer. This table holds the
look-alikes of the Latin letters from Unicode's confusables data (UTS #39) for the scripts
mixed into Latin text in practice: Cyrillic, Greek, Armenian and a few Latin letters of other
alphabets. Folding prose of those scripts only makes it unreadable to the rules, never a match:
the rules still need whole English words. Pure data and one `str.translate` table.
"""

from __future__ import annotations

_PAIRS = (
    # Cyrillic
    "аa вb еe ёe һh іi їi јj кk мm оo рp сc ѕs тt уy хx ԁd ԛq ԝw ӏl ɡg ԍg ӕa ѵv ҁc ɩi"
    " АA ВB ЕE ЁE ЅS ІI ЇI ЈJ КK МM НH ОO РP СC ТT ХX УY ҮY ԚQ ԜW ӀI ҺH ԌG ѴV"
    # Greek
    " αa βb γy εe ιi κk νv οo ρp σo τt υu χx ϲc ϳj ϵe ℩i"
    " ΑA ΒB ΕE ΖZ ΗH ΙI ΚK ΜM ΝN ΟO ΡP ΤT ΥY ΧX ϹC ϒY"
    # Armenian
    " օo սu հh ոn զq ցg ռn աw"
    # Latin letters of other alphabets
    " ıi ȷj ɑa ɒa ɛe ɪi ʟl ʀr ʏy ᴀa ᴄc ᴅd ᴇe ᴊj ᴋk ᴍm ᴏo ᴘp ᴛt ᴜu ᴠv ᴡw ᴢz ꞵb ſs"
)

FOLD = str.maketrans({pair[0]: pair[1] for pair in _PAIRS.split() })
