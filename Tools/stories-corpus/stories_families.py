# Families of stories that look alike and are not the same story: the hard negatives of the
# corpus (generate.py). Every entry here becomes its own story with its own copies; within a
# family, stories differ by a number, a name (team, company, person, place) or their date.
# Each entry: (family, kind of difference, topic, day, hour, [versions of the headline]); as in
# stories_major.py, a version marked "~" is a rewrite, the others light edits.
import random

def sports_games(rng):
    out = []
    # NBA playoff series: same teams every other day, different scores (numbers differ).
    series = [
        ("Knicks", "Celtics", "Jalen Brunson", 1), ("Thunder", "Nuggets", "Shai Gilgeous-Alexander", 0),
        ("Cavaliers", "Pacers", "Donovan Mitchell", 1), ("Timberwolves", "Warriors", "Anthony Edwards", 0),
    ]
    for (a, b, star, offset) in series:
        wins = {a: 0, b: 0}
        for g in range(5):
            day = offset + 2 * g
            winner, loser = (a, b) if rng.random() < 0.55 else (b, a)
            ws = rng.randint(98, 128)
            ls = ws - rng.randint(1, 19)
            wins[winner] += 1
            lead = f"{max(wins.values())}-{min(wins.values())}"
            pts = rng.randint(24, 44)
            leader = max(wins, key=lambda t: wins[t])
            if wins[a] == wins[b]:
                series_phrase = f"even series at {lead}"
            elif leader == winner:
                series_phrase = f"take {lead} series lead"
            else:
                series_phrase = f"cut series deficit to {lead}"
            if wins[a] == wins[b]:
                series_comma = f"even series at {lead}"
            else:
                series_comma = f"{'lead' if leader == winner else 'trail'} series {lead}"
            versions = [
                f"{winner} beat {loser} {ws}-{ls} to {series_phrase}",
                f"{winner} top {loser} {ws}-{ls}, {series_comma}",
                f"{winner} down {loser} {ws}-{ls} to {series_phrase}",
            ]
            rng.shuffle(versions)
            out.append(("nba-series", "number", "sports", day, 2, versions[:rng.choice([1, 2, 2, 3])]))
            # A recap centred on the star player: another story about the same game.
            if rng.random() < 0.5 and winner == a:
                out.append(("nba-series", "number", "sports", day, 4, [
                    f"{star} scores {pts} as {winner} beat {loser} in Game {g + 1}",
                    f"~{star}'s {pts} points lift {winner} past {loser} in Game {g + 1}",
                ]))
    # MLB: many games a night, same templates, different teams and scores.
    teams = ["Yankees", "Red Sox", "Dodgers", "Giants", "Cubs", "Cardinals", "Mets", "Phillies", "Braves",
             "Astros", "Rangers", "Mariners", "Padres", "Orioles", "Blue Jays", "Guardians", "Tigers", "Twins"]
    templates = [
        ["{w} beat {l} {ws}-{ls}", "{w} top {l} {ws}-{ls}", "{l} fall to {w} {ws}-{ls}"],
        ["{w} rally past {l} {ws}-{ls} in 10 innings", "{w} beat {l} {ws}-{ls} in 10 innings"],
        ["{w} hold off {l} {ws}-{ls}", "{w} hang on to beat {l} {ws}-{ls}"],
        ["{w} rout {l} {ws}-{ls}", "{w} crush {l} {ws}-{ls}"],
        ["{w} shut out {l} {ws}-0", "{w} blank {l} {ws}-0"],
    ]
    for day in range(0, 20, 2):
        rng.shuffle(teams)
        for k in range(0, 6, 2):
            w, l = teams[k], teams[k + 1]
            t = rng.choice(templates)
            ws = rng.randint(3, 11)
            ls = 0 if "0" in t[0][-2:] else rng.randint(1, ws - 1)
            versions = [v.format(w=w, l=l, ws=ws, ls=ls) for v in t]
            rng.shuffle(versions)
            out.append(("mlb", "name", "sports", day, 3, versions[:rng.choice([1, 2])]))
    # Premier League final weekends: same clubs' fixtures, different clubs and scores.
    fixtures = [
        (5, "Arsenal", "Newcastle", 2, 1, "Saka", "secure second place"),
        (5, "Liverpool", "Crystal Palace", 3, 1, "Salah", "celebrate title"),
        (5, "Chelsea", "Nottingham Forest", 1, 0, "Palmer", "boost top-four hopes"),
        (5, "Aston Villa", "Tottenham", 2, 0, "Watkins", "boost top-four hopes"),
        (12, "Arsenal", "Southampton", 2, 1, "Odegaard", "secure second place"),
        (12, "Manchester City", "Fulham", 3, 0, "Haaland", "secure top-four finish"),
        (12, "Newcastle", "Everton", 0, 1, "Beto", "dent Champions League hopes"),
        (12, "Brighton", "Brentford", 4, 2, "Mitoma", "end season on a high"),
        (19, "Liverpool", "Brighton", 2, 2, "Salah", "title party"),
        (19, "Manchester United", "Aston Villa", 2, 0, "Fernandes", "end season on a high"),
    ]
    for (day, home, away, hs, as_, scorer, tail) in fixtures:
        if hs > as_:
            versions = [f"{home} beat {away} {hs}-{as_} to {tail}", f"~{home} {hs}-{as_} {away}: {scorer} on target as hosts {tail}"]
        elif hs < as_:
            versions = [f"{away} win {as_}-{hs} at {home} to {tail}", f"~{home} {hs}-{as_} {away}: {scorer} strikes as visitors {tail}"]
        else:
            versions = [f"{home} and {away} draw {hs}-{as_} in {tail}", f"~{home} {hs}-{as_} {away}: {scorer} scores in {tail}"]
        out.append(("premier-league", "name", "sports", day, 17, versions))
    # NHL: same matchups on consecutive game days.
    for (a, b, days) in [("Oilers", "Stars", [0, 2, 4, 6]), ("Panthers", "Hurricanes", [1, 3, 5, 7])]:
        for g, day in enumerate(days):
            w, l = (a, b) if rng.random() < 0.5 else (b, a)
            ws = rng.randint(2, 6)
            ls = rng.randint(0, ws - 1)
            versions = [f"{w} beat {l} {ws}-{ls} in Game {g + 1} of conference final",
                        f"{w} down {l} {ws}-{ls} in Game {g + 1}"]
            out.append(("nhl-series", "number", "sports", day, 3, versions[:rng.choice([1, 2])]))
    return out


def markets(rng):
    out = []
    trading = [d for d in range(21) if d % 7 < 5]
    dow = 42150
    ftse = 8800
    oil = 79.4
    prev_pts = set()
    for day in trading:
        move = rng.choice([-1, 1]) * rng.randint(60, 620)
        while move in prev_pts:
            move += 7
        prev_pts.add(move)
        pct = round(abs(move) / dow * 100, 1)
        dow += move
        driver_up = rng.choice(["tech stocks rally", "chipmakers surge", "bank shares climb", "inflation fears ease", "retailers rebound"])
        driver_dn = rng.choice(["bond yields climb", "tech shares slide", "oil prices jump", "rate cut hopes fade", "trade worries return"])
        if move > 0:
            versions = [f"Dow rises {move} points as {driver_up}", f"Dow gains {move} points, or {pct}%, as {driver_up}",
                        f"~Stocks close higher as Dow climbs {move} points"]
        else:
            versions = [f"Dow falls {-move} points as {driver_dn}", f"Dow drops {-move} points, or {pct}%, as {driver_dn}",
                        f"~Stocks close lower as Dow sheds {-move} points"]
        out.append(("wall-street", "number", "markets", day, 20, [versions[0], versions[2]] if rng.random() < 0.5 else [versions[1]]))
        fmove = rng.choice([-1, 1]) * rng.randint(12, 95)
        ftse += fmove
        if fmove > 0:
            fv = [f"FTSE 100 closes up {fmove} points at {ftse:,}", f"FTSE 100 ends {fmove} points higher at {ftse:,}"]
        else:
            fv = [f"FTSE 100 closes down {-fmove} points at {ftse:,}", f"FTSE 100 ends {-fmove} points lower at {ftse:,}"]
        out.append(("ftse", "number", "markets", day, 16, fv))
        if rng.random() < 0.6:
            oil = round(oil + rng.choice([-1, 1]) * rng.uniform(0.6, 2.4), 2)
            reason = rng.choice(["OPEC+ weighs output hike", "US stockpiles rise", "Middle East tensions flare", "China demand worries grow"])
            direction = "rises" if rng.random() < 0.5 else "falls"
            out.append(("oil", "number", "markets", day, 14, [f"Oil {direction} to ${oil} a barrel as {reason}",
                                                              f"Oil prices {direction[:-1]} to ${oil} as {reason}"]))
    # Mortgage rates: a recurring headline with a date and a rate (6.19 / 6.20).
    rate = 6.17
    for day in trading:
        rate = round(rate + rng.choice([-0.02, -0.01, 0.01, 0.02, 0.03]), 2)
        date = f"May {4 + day}, 2026"
        out.append(("mortgage-rates", "number", "markets", day, 11, [
            f"Mortgage rates today, {date}: 30-year fixed rate at {rate:.2f}%",
        ]))
    # Bitcoin and gold records.
    for (day, level) in [(2, "112,000"), (6, "113,500"), (9, "115,000"), (16, "118,000")]:
        out.append(("bitcoin", "number", "markets", day, 9, [f"Bitcoin tops ${level} for the first time",
                                                             f"~Bitcoin climbs above ${level} to hit record"]))
    for (day, level) in [(1, "3,480"), (3, "3,500"), (8, "3,520")]:
        out.append(("gold", "number", "markets", day, 13, [f"Gold hits record ${level} an ounce as investors seek safety",
                                                          f"Gold price hits record high of ${level} an ounce"]))
    # Treasury yields: 4.5% then 4.6%.
    for (day, y) in [(7, "4.5"), (8, "4.6"), (10, "4.55")]:
        out.append(("treasury", "number", "markets", day, 15, [f"10-year Treasury yield climbs to {y}%, highest since February",
                                                              f"~US 10-year yield rises to {y}% as inflation worries linger"]))
    return out


def earnings(rng):
    out = []
    companies = [
        ("Walmart", "first-quarter", "Q1", "profit rises", "e-commerce growth"),
        ("Home Depot", "first-quarter", "Q1", "sales fall", "housing slowdown"),
        ("Target", "first-quarter", "Q1", "profit drops", "weak discretionary spending"),
        ("Nvidia", "first-quarter", "Q1", "revenue soars", "AI chip demand"),
        ("Disney", "second-quarter", "Q2", "profit beats estimates", "parks and streaming"),
        ("Alibaba", "fourth-quarter", "Q4", "revenue rises", "cloud growth"),
        ("Sony", "fourth-quarter", "Q4", "profit jumps", "PlayStation sales"),
        ("Cisco", "third-quarter", "Q3", "revenue tops forecasts", "AI networking orders"),
        ("Salesforce", "first-quarter", "Q1", "revenue beats estimates", "AI agent demand"),
        ("Deere", "second-quarter", "Q2", "profit falls", "lower farm equipment sales"),
        ("Lowe's", "first-quarter", "Q1", "sales fall", "housing slowdown"),
        ("Macy's", "first-quarter", "Q1", "sales fall", "weak consumer spending"),
    ]
    for (co, quarter, q, verb, reason) in companies:
        day = rng.randint(0, 19)
        pct = rng.randint(3, 69)
        versions = [f"{co} {quarter} {verb} {pct}% on {reason}",
                    f"{co} {q} {verb} {pct}% as {reason} continues",
                    f"{co}'s {quarter} {verb.split()[0]} {verb.split()[1]} {pct}%"]
        out.append(("earnings", "name", "business", day, 12, versions[:rng.choice([2, 3])]))
    # Ordinals that differ in otherwise equal headlines.
    out.append(("ordinal", "number", "world", 3, 10, ["Ukraine and Russia hold third round of peace talks in Istanbul",
                                                      "~Third round of Ukraine-Russia peace talks opens in Istanbul"]))
    out.append(("ordinal", "number", "world", 5, 11, ["Ukraine and Russia hold fourth round of peace talks in Istanbul",
                                                      "~Fourth round of Ukraine-Russia peace talks opens in Istanbul"]))
    out.append(("ordinal", "number", "economy", 9, 0, ["Japan's economy shrinks in first quarter as exports slump",
                                                       "~Japanese economy contracts in first quarter on weak exports"]))
    out.append(("ordinal", "number", "economy", 10, 23, ["Japan's economy shrinks in fourth quarter as exports slump, revised data show"]))
    out.append(("ordinal", "number", "sports", 8, 4, ["Giants lose third straight game as slump deepens"]))
    out.append(("ordinal", "number", "sports", 9, 4, ["Giants lose fourth straight game as slump deepens"]))
    out.append(("ordinal", "number", "local", 11, 15, ["Second suspect arrested in killing of jogger in Riverside Park",
                                                       "Police arrest second suspect in Riverside Park jogger killing"]))
    out.append(("ordinal", "number", "local", 12, 19, ["Third suspect arrested in killing of jogger in Riverside Park",
                                                       "Police arrest third suspect in Riverside Park jogger killing"]))
    out.append(("ordinal", "number", "economy", 14, 13, ["Fed's Lindqvist backs second rate cut this year",
                                                        "Fed governor Lindqvist supports a second rate cut this year"]))
    out.append(("ordinal", "number", "economy", 16, 14, ["Fed's Lindqvist backs third rate cut this year"]))
    # Numbers that differ in otherwise equal headlines: death tolls, counts, rates, versions.
    out.append(("count", "number", "world", 15, 6, ["Storm kills three in Texas as tornadoes touch down",
                                                    "Three killed in Texas as tornadoes touch down"]))
    out.append(("count", "number", "world", 15, 19, ["Storm kills five in Texas as tornadoes touch down",
                                                     "Five killed in Texas as tornadoes touch down"]))
    out.append(("count", "number", "local", 6, 22, ["Two people injured in shooting at Springfield shopping mall"]))
    out.append(("count", "number", "local", 7, 23, ["Three people injured in shooting at Springfield shopping mall"]))
    out.append(("count", "number", "economy", 1, 8, ["UK wage growth slows to 4% as jobs market cools",
                                                     "UK pay growth slows to 4% as labour market cools"]))
    out.append(("count", "number", "economy", 3, 8, ["UK wage growth slows to 3.75% as jobs market cools"]))
    out.append(("count", "number", "business", 4, 9, ["Nationwide cuts fixed mortgage rates to 4%"]))
    out.append(("count", "number", "business", 6, 9, ["Nationwide cuts fixed mortgage rates to 3.75%"]))
    out.append(("version", "number", "tech", 2, 17, ["Apple releases iOS 19.4 with new Siri features",
                                                     "~iOS 19.4 is out with new Siri features"]))
    out.append(("version", "number", "tech", 13, 17, ["Apple releases iOS 19.5 with new Siri features"]))
    out.append(("version", "number", "tech", 7, 18, ["Chrome 138 fixes zero-day flaw exploited in attacks",
                                                     "~Google patches Chrome 138 zero-day exploited in the wild"]))
    out.append(("version", "number", "tech", 9, 18, ["Chrome 139 fixes zero-day flaw exploited in attacks"]))
    out.append(("count", "number", "politics", 4, 16, ["Poll: Delgado leads Harmon by 4 points in Ohio Senate race",
                                                       "~Delgado up 4 points over Harmon in Ohio Senate poll"]))
    out.append(("count", "number", "politics", 6, 16, ["Poll: Delgado leads Harmon by 6 points in Ohio Senate race"]))
    out.append(("count", "number", "politics", 8, 12, ["Poll: Harmon leads Delgado by 2 points in Ohio Senate race"]))
    return out


def companies(rng):
    out = []
    pairs = [
        (3, [("Microsoft", "6,000"), ("Google", "1,400"), ("Meta", "3,600")],
         ["{c} to cut {n} jobs in latest round of layoffs", "~{c} plans to lay off {n} workers"]),
        (8, [("Ford", None), ("Honda", None), ("Hyundai", None)],
         ["{c} recalls SUVs over rearview camera problem", "~{c} issues recall for SUVs with faulty rearview cameras"]),
        (10, [("Nike", None), ("Adidas", None)],
         ["{c} shares fall after weak sales forecast", "~{c} stock drops on weak sales outlook"]),
        (13, [("Apple", None), ("Google", None)],
         ["{c} faces EU antitrust fine over app store rules", "~EU set to fine {c} over app store rules"]),
        (15, [("Uber", None), ("Lyft", None)],
         ["{c} launches robotaxi service in Austin", "~{c} begins offering robotaxi rides in Austin"]),
        (17, [("Ryanair", None), ("easyJet", None)],
         ["{c} warns of higher summer fares", "~{c} says summer fares will rise"]),
        (11, [("Barclays", None), ("HSBC", None), ("Lloyds", None)],
         ["{c} profits beat expectations as interest income rises", "~{c} beats profit forecasts on higher interest income"]),
    ]
    for (day, cos, tpl) in pairs:
        for (c, n) in cos:
            versions = [t.format(c=c, n=n) for t in tpl]
            out.append(("company", "name", "business", day, rng.randint(8, 18), versions[:rng.choice([1, 2])]))
    return out


def places(rng):
    out = []
    groups = [
        (2, "weather", [("Denver", "Colorado"), ("Minneapolis", "Minnesota"), ("Salt Lake City", "Utah")],
         ["Heavy snow warning issued for {p} as late-season storm approaches", "~{p} under heavy snow warning as storm moves in"]),
        (9, "weather", [("Houston", None), ("San Antonio", None), ("Dallas", None)],
         ["Flash flood warning in effect for {p} until 8 p.m.", "Flash flood warning issued for {p} area"]),
        (15, "weather", [("Phoenix", None), ("Las Vegas", None)],
         ["Heat advisory issued for {p} as temperatures near record", "{p} under heat advisory as temperatures soar"]),
        (11, "weather", [("London", None), ("Manchester", None), ("Glasgow", None)],
         ["Met Office issues yellow warning for thunderstorms in {p}", "Yellow weather warning for thunderstorms in {p}"]),
        (4, "local", [("Leeds", None), ("Bradford", None), ("Sheffield", None)],
         ["Man charged with murder after stabbing in {p} city centre", "Murder charge after fatal stabbing in {p} city centre"]),
        (7, "local", [("Salford", None), ("Oldham", None)],
         ["Fire crews tackle large blaze at warehouse in {p}", "~Large warehouse fire in {p} as crews battle flames"]),
        (12, "local", [("Huddersfield", "M62"), ("Sheffield", "M1"), ("Preston", "M6")],
         ["Police appeal for witnesses after crash on {r} near {p}", "Witness appeal after serious crash on {r} near {p}"]),
        (14, "local", [("Exeter", None), ("Plymouth", None)],
         ["Water company issues boil notice for homes in {p}", "~Residents in {p} told to boil tap water"]),
        (16, "local", [("Bristol", None), ("Cardiff", None)],
         ["Missing teenager found safe in {p}, police say", "Police say missing teenager has been found safe in {p}"]),
        (18, "local", [("Derby", "A38"), ("Derby", "A6")],
         ["Road closed after lorry overturns on {r} near {p}", "Lorry overturns on {r} near {p}, closing road"]),
        (6, "world", [("Lisbon", None), ("Madrid", None), ("Rome", None)],
         ["Transport strike brings {p} to a standstill", "~{p} grinds to a halt as transport workers strike"]),
        (13, "world", [("Mumbai", None), ("Karachi", None)],
         ["Monsoon rains flood streets in {p}", "Heavy monsoon rain floods {p} streets"]),
    ]
    for (day, topic, placelist, tpl) in groups:
        for (p, r) in placelist:
            versions = [t.format(p=p, r=r) for t in tpl]
            out.append(("place", "name", topic, day, rng.randint(6, 20), versions[:rng.choice([1, 2])]))
    # Words that are neither numbers nor names: yellow and amber warnings.
    out.append(("word", "word", "weather", 11, 9, ["Met Office issues amber warning for thunderstorms in London"]))
    return out


def recurring(rng):
    """Headlines an outlet repeats: (family, kind, topic, day, hour, [title], origin outlet id)."""
    out = []
    for day in range(21):
        if day % 7 < 5:
            out.append(("briefing", "recurring", "world", day, 5, ["Morning briefing: what you need to know today"], "nbs"))
        out.append(("digest", "recurring", "world", day, 18, ["Daily digest: the stories you might have missed"], "newsroll"))
        out.append(("forecast", "recurring", "weather", day, 6, ["Today's weather forecast for Springfield"], "springfield"))
        out.append(("wordle", "recurring", "culture", day, 0, [f"Wordle today: hints and answer for puzzle #{1415 + day:,}"], "circuit"))
        out.append(("evening", "recurring", "world", day, 22, ["Your evening update"], "channel9"))
    for day in [0, 7, 14]:
        out.append(("week-ahead", "recurring", "markets", day, 6, ["Stocks to watch this week: earnings, inflation data and Fed speakers"], "tickertimes"))
    names = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    for day in range(21):
        if day % 7 in (0, 2, 5):
            jackpot = 120 + 15 * day
            out.append(("powerball", "recurring", "culture", day, 4,
                        [f"Powerball winning numbers for {names[day % 7]}, May {4 + day}, 2026: jackpot ${jackpot} million"], "springfield"))
    return out
