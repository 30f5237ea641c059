"""Short function-word lists for English and Swedish.

Used where a metric needs "content words" and no model may be downloaded: the
extractive summariser (SumBasic) and TPS's text spans (004 §4.1.1 counts every word
other than a stopword). Kept short and closed-class on purpose: pronouns, articles,
prepositions, conjunctions, auxiliaries.
"""

from __future__ import annotations

STOPWORDS: dict[str, frozenset[str]] = {
    "en": frozenset("""
        a an the and or but nor so yet if then than that this these those there here what which who whom whose
        when where why how all any both each few more most other some such no not only own same too very can will
        just should would could may might must shall do does did done doing have has had having be is am are was
        were been being i me my myself we our ours you your yours he him his himself she her hers herself it its
        itself they them their theirs themselves of at by for with about against between into through during before
        after above below to from up down in out on off over under again further once also as until while because
        s t d ll m o re ve y ain
    """.split()),
    "sv": frozenset("""
        och i att det som en på är av för med till den har de inte om ett han men var jag sig från vi så kan man
        när år säger hon under också efter eller nu sin där vid mot ska skulle kommer ut får finns vara hade alla
        andra mycket än här då sedan över bara in blir upp även vad få två vill ha många hur mer går sina
        dessa dem deras denna detta dess henne hennes hans honom hos icke ingen inom inga mig min mina mitt ni
        oss själv sitt sådan utan vara varit vars vem vilka vilken vilket vår våra vårt er era ert ej blev bli
        du dig din dina ditt varför varje åt
    """.split()),
}


def is_content_word(word: str, lang: str) -> bool:
    """A lower-cased word that is neither a stopword nor a bare number."""
    return word not in STOPWORDS.get(lang, frozenset()) and not word.isdigit()
