"""Tests of the measure in score.py and of the gold derivation in gen/articledoc.py.
Run: python3 -m unittest discover -s bench/article -p 'test_*.py'"""
from __future__ import annotations

import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "gen"))

from articledoc import gold_text, inline_html, parse, plain  # noqa: E402
from score import score_pair, shingles, tokens  # noqa: E402

GOLD = "The quick brown fox jumps over the lazy dog.\n\nIt was not amused, said the dog."


class MeasureTests(unittest.TestCase):
    def test_identical_text_scores_one(self):
        r = score_pair(GOLD, GOLD)
        self.assertEqual((r["p"], r["r"], r["f1"]), (1.0, 1.0, 1.0))

    def test_punctuation_case_and_line_breaks_do_not_matter(self):
        r = score_pair("the QUICK brown fox -- jumps over the lazy dog it was not amused said the dog", GOLD)
        self.assertEqual(r["f1"], 1.0)

    def test_empty_extraction_scores_zero(self):
        r = score_pair("", GOLD)
        self.assertEqual((r["p"], r["r"], r["f1"]), (0.0, 0.0, 0.0))

    def test_boilerplate_lowers_precision_only(self):
        r = score_pair("Sign up for our newsletter today and never miss a story. " + GOLD, GOLD)
        self.assertEqual(r["r"], 1.0)
        self.assertLess(r["p"], 0.7)

    def test_half_the_text_halves_recall(self):
        words = " ".join(f"w{i}" for i in range(103))  # 100 shingles
        first = " ".join(f"w{i}" for i in range(53))   # 50 of them
        r = score_pair(first, words)
        self.assertEqual(r["p"], 1.0)
        self.assertAlmostEqual(r["r"], 0.5)

    def test_shingles_are_a_multiset(self):
        gold = "a b c d"
        r = score_pair("a b c d a b c d", gold)  # 5 shingles, one of them matches once
        self.assertEqual(r["overlap"], 1)
        self.assertAlmostEqual(r["p"], 1 / 5)

    def test_short_text_is_one_shingle(self):
        self.assertEqual(shingles(tokens("Hello world", False)), {"hello world": 1})

    def test_cjk_gold_uses_character_shingles(self):
        gold = "手網焙煎を始めてから、ちょうど三年が経った。"
        r = score_pair("手網焙煎を始めてから、 ちょうど\n三年が経った。", gold)  # spaces do not count
        self.assertTrue(r["cjk"])
        self.assertEqual(r["f1"], 1.0)
        self.assertLess(score_pair("三年が経った", gold)["r"], 0.5)

    def test_unicode_words(self):
        self.assertEqual(tokens("Médiathèque ŒUVRE l'été", False), ["médiathèque", "œuvre", "l", "été"])


class GoldTests(unittest.TestCase):
    def article(self, body: str):
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False, encoding="utf-8") as f:
            f.write("title: T\nskin: html5\nkind: news\nurl: https://example.org/t\n---\n" + body)
        try:
            return parse(f.name, "99-t")
        finally:
            os.unlink(f.name)

    def test_pull_quotes_and_markers_are_not_gold_quotes_are(self):
        a = self.article("First *para*.\n\n>> Pulled text.\n\n> A quoted source.\n\n[ad]\n\n- one\n- two\n")
        self.assertEqual(gold_text(a), "First para.\n\nA quoted source.\n\none\ntwo\n")

    def test_tables_code_and_notes(self):
        a = self.article("| A | B |\n| 1 | 2 |\n\n```sh\necho  hi\n```\n\n[note Tip] Read **this**.\n")
        self.assertEqual(gold_text(a), "A | B\n1 | 2\n\necho  hi\n\nTip\nRead this.\n")

    def test_inline_markup_reaches_html_and_leaves_gold(self):
        text = "See [the docs](https://example.org/d) and `a<b>`, **bold *nested* here**."
        self.assertEqual(plain(text), "See the docs and a<b>, bold nested here.")
        html = inline_html(text, misnest=True, entities=True)
        self.assertIn('<a href="https://example.org/d">the docs</a>', html)
        self.assertIn("<code>a&lt;b&gt;</code>", html)
        self.assertIn("<b><i>bold <em>nested</em> here</b></i>", html)


if __name__ == "__main__":
    unittest.main()
