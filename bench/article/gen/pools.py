"""Boilerplate text the skins draw from: teasers for related / most-read lists (a headline and
a sentence of teaser text each), cookie banners, newsletter boxes, author-less widget text.
None of it is ever gold. Picks are deterministic per page (see `pick`)."""
from __future__ import annotations

import random

NEWS_TEASERS = [
    ("Ferry operator cancels winter timetable after engine fault", "Passengers on the island route face a three-week gap while a replacement vessel is chartered from Norway."),
    ("Hospital waiting lists fall for the first time in four years", "The drop is small, but managers say weekend clinics for hip and knee surgery are starting to tell."),
    ("Why your home insurance premium jumped this spring", "Insurers point to repair costs and storms; brokers say shopping around still saves the most."),
    ("Council to trial four-day week for planning staff", "The pilot covers 60 employees and will be judged on how fast applications are decided."),
    ("Teenager's science project flags lead in school taps", "Her results prompted the district to test every fountain in eleven buildings over the summer."),
    ("Coffee prices hit a 13-year high as harvests falter", "Roasters warn that the cost of a flat white could rise again before the end of the year."),
    ("Police appeal after vintage tractors stolen from farm show", "Three restored machines were loaded onto a trailer in the early hours, organisers said."),
    ("Tenants win rent rebate after landlord ignored damp", "The tribunal ordered repayment of four months' rent and gave the owner 28 days to fix the roof."),
    ("Mayor defends cost of new riverside footbridge", "The bridge came in at nearly twice its original budget, prompting calls for an inquiry."),
    ("Bus drivers vote to accept pay offer, ending dispute", "The deal includes a 6 percent rise this year and a review of split shifts."),
    ("Scientists track rare bat colony in disused railway tunnel", "Night cameras recorded more than 200 lesser horseshoe bats using the tunnel to hibernate."),
    ("Opinion: the high street is not dead, it is changing", "Empty units are filling with clinics, gyms and repair shops rather than clothing chains."),
    ("Drought warning issued for three counties", "Reservoir levels are 14 points below the seasonal average after the driest April on record."),
    ("Local brewery expands after winning national award", "The company will double its brewing capacity and hire twelve people this autumn."),
    ("Court hears of 'chaotic' record keeping at care home", "Inspectors found medication charts that had not been signed for weeks at a time."),
    ("How to read the new energy labels on appliances", "The scale has been reset, so a fridge that was A+++ may now show as a D."),
    ("Library fines scrapped and books start coming back", "Staff say overdue items from as far back as 1998 have been returned since the amnesty."),
    ("Storm damage bill passes 40 million", "Roads, sea walls and a cricket pavilion are among the repairs still waiting for funding."),
    ("Airport passenger numbers return to pre-pandemic levels", "Summer charter flights to southern Europe drove the recovery, the operator said."),
    ("Village shop saved by community share offer", "More than 300 residents bought shares at 50 each to keep the post office counter open."),
    ("Broadband rollout stalls in upland parishes", "Contractors blame a shortage of engineers; residents say they were promised fibre in 2021."),
    ("New rules for e-scooter hire come into force", "Operators must now cap speeds in pedestrian zones and collect abandoned scooters within two hours."),
    ("Graduate unemployment rises as firms pause hiring", "Engineering and nursing graduates were the least affected, the survey found."),
    ("Fishing quotas cut again for North Sea cod", "Skippers say the reduction will tie up boats for part of the spring season."),
    ("Historic theatre reopens after seven-year restoration", "The 1,100-seat auditorium has its original plasterwork back and, for the first time, a lift."),
    ("Supermarket recalls hummus over undeclared sesame", "Customers are advised to return the 200g tubs with use-by dates in the coming fortnight."),
    ("Parents protest over school bus route changes", "The new route adds forty minutes to the journey for pupils from outlying farms."),
    ("Inflation eases but food prices keep climbing", "The headline rate fell for a third month, while bread and cereals rose 9 percent year on year."),
    ("Cyclist injured in collision on notorious junction", "Campaigners have asked for a segregated lane at the crossing for more than a decade."),
    ("Wind farm given go-ahead despite objections", "The 22-turbine scheme will power about 40,000 homes, the developer says."),
    ("Obituary: the lighthouse keeper who logged 40 years of weather", "His handwritten ledgers are now part of the national meteorological archive."),
    ("Five things to do this weekend", "A lantern parade, a vintage bus rally and a free jazz afternoon in the park."),
    ("Rail line to close for ten days of engineering work", "Replacement buses will run between the two stations, adding up to an hour to journeys."),
    ("House prices stall as mortgage approvals drop", "First-time buyers are holding back, agents say, waiting for rates to settle."),
    ("Football club fined over crowd trouble", "The league also ordered one home match to be played behind closed doors."),
    ("Volunteers count 3,000 toads across country lane", "The annual patrol helps the amphibians reach their breeding pond without being run over."),
]

TECH_TEASERS = [
    ("Migrating a monolith without a rewrite", "We moved one endpoint at a time behind a proxy and kept shipping features throughout."),
    ("What we learned from a year of on-call data", "Most pages came from three alerts nobody had looked at since they were written."),
    ("A gentle introduction to property-based testing", "Instead of writing examples, describe what must always hold and let the tool search."),
    ("SQLite is enough for more than you think", "One file, no server, and write throughput that surprised us on modest hardware."),
    ("The hidden cost of feature flags", "Every flag doubles the states your code can be in, and few teams ever remove them."),
    ("Reading a flame graph, step by step", "Width is time, height is stack depth, and colour usually means nothing at all."),
    ("Release notes for version 4.2", "Faster cold starts, a new plugin API and a long list of fixed edge cases."),
    ("How we cut our CI time in half", "Caching the dependency layer and splitting the slowest test suite did most of the work."),
    ("Unicode normalisation for the rest of us", "Two strings can look identical and still compare unequal; here is why."),
    ("Designing error messages people can act on", "Say what was expected, what was found, and where; leave the stack trace for the log."),
    ("Why our cache made things slower", "A hit rate of 98 percent hid the fact that misses were stampeding the database."),
    ("Writing a tiny HTTP server to understand HTTP", "Two hundred lines of code taught us more than any diagram of the protocol."),
    ("Choosing between a queue and a log", "If consumers need to replay history, you want a log; if not, a queue is simpler."),
    ("Accessibility checks you can run in five minutes", "Keyboard-only navigation finds more problems than most automated scanners."),
    ("Time zones will break your scheduler", "Daylight saving time creates an hour that happens twice and one that never happens."),
    ("Notes from a week without a debugger", "Print statements, careful reading and a notebook turned out to be enough."),
    ("The case for boring technology, revisited", "Ten years on, the argument holds, with a few exceptions for managed services."),
    ("Benchmarking is harder than it looks", "Warm caches, CPU frequency scaling and noisy neighbours all lie to you."),
    ("Community call recap: March", "Maintainers discussed the roadmap, the new contributor guide and a security report."),
    ("Deprecation policy update", "APIs marked deprecated will now remain for two minor releases before removal."),
]

LIFE_TEASERS = [
    ("Ten days on the coast path with a toddler", "We carried too much, walked too little and would do it all again tomorrow."),
    ("My sourdough starter is older than my car", "A jar on the windowsill, fed twice a day since the winter of 2016."),
    ("Repairing a wool jumper with visible mending", "Darning is slower than it looks, and far more satisfying than buying new."),
    ("A year of keeping bees, honestly", "One swarm lost, forty jars of honey and more stings than I will admit to."),
    ("The best cheap tent I have owned", "It survived a gale on a Welsh hillside, which is more than I can say for my stove."),
    ("How I organise a tiny kitchen", "Magnetic strips, a rolling cart and the courage to give away the bread maker."),
    ("Growing chillies on a north-facing balcony", "Less sun than the seed packet wants, but the plants did not read the packet."),
    ("What I read this winter", "A mix of old sea stories, one brilliant biography and a cookbook read like a novel."),
    ("Learning to swim at forty-five", "Lessons at seven in the morning with three retirees and a very patient instructor."),
    ("Our slow trip across Portugal by train", "Regional trains, long lunches and a missed connection that turned out for the best."),
    ("The allotment in August", "Courgettes everywhere, beans at last, and a battle with the pigeons lost again."),
    ("Restoring an old enamel sign", "Rust converter, patience, and knowing when to stop before it looks brand new."),
    ("Walking the old drovers' roads", "The routes cattle took to market are still there if you know where to look."),
    ("On keeping a paper diary", "Six years of notebooks and the small pleasure of finding last spring's weather."),
    ("A beginner's guide to birdsong", "Start with five common birds and the rest of the chorus slowly makes sense."),
    ("Fixing a squeaky floorboard properly", "A screw in the right place beats a bag of talc and a hopeful prayer."),
    ("The cheapest way to heat one room", "We measured three heaters and an electric blanket over a cold fortnight."),
    ("Why I still use a film camera", "Thirty-six frames make you look harder at everything before you press."),
]

FOOD_TEASERS = [
    ("Brown butter banana bread", "Nutty, dense and the reason I now buy bananas I know I will not eat."),
    ("One-pan lemon chicken with orzo", "Dinner in forty minutes with only one thing to wash up afterwards."),
    ("Grandma's plum dumplings", "Soft potato dough around a whole plum, rolled in buttery breadcrumbs."),
    ("Crispy smashed potatoes", "Boil, smash, roast hot: the crunchiest potatoes you will make this year."),
    ("Roasted tomato soup for the freezer", "Make a big batch in September and thank yourself in January."),
    ("Easy overnight oats, five ways", "Prepare a week of breakfasts on Sunday evening in fifteen minutes."),
    ("Spiced lentil soup", "Cheap, filling and better on the second day, like all good soups."),
    ("No-knead focaccia", "Mix it at night, bake it at lunch, and press your fingers in with joy."),
]

FORUM_TOPICS = [
    "Best way to back up photos from an old laptop?", "Strange noise from the rear wheel at speed",
    "Anyone else seeing slow updates since the last release?", "Recommendations for a first tool kit",
    "Can't get the heating to hold temperature overnight", "What oil do you run in winter?",
    "Help identifying this plant in my garden", "Replacing a cracked tile without removing the rest",
    "Is it worth upgrading the firmware?", "Ideas for a weekend route with kids",
    "Battery drains overnight even when switched off", "Looking for a good beginner's guide",
    "Moving from version 2 to 3, any gotchas?", "Tips for keeping the workshop dry",
    "Which torque wrench do you trust?", "Server keeps dropping connections after an hour",
]

COOKIE_TEXTS = [
    "We use cookies and similar technologies to run this site, remember your preferences, measure how the site is used and show you personalised advertising. You can accept all cookies, reject non-essential ones, or choose which purposes you agree to.",
    "This website uses cookies to improve your experience. By continuing to browse you agree to our use of cookies. Read our cookie policy to find out more and to change your settings.",
    "We and our 142 partners store and access information on your device to provide personalised ads and content, ad and content measurement, audience insights and product development. Click Agree to consent, or Manage options to choose.",
    "Our site uses essential cookies to make it work. We would also like to set analytics cookies that help us improve it. We will not set optional cookies unless you turn them on.",
    "Cookies help us deliver our services. By using our services, you agree to our use of cookies. Some of these are set by third-party services that appear on our pages.",
]

NEWSLETTER_TEXTS = [
    ("Get the morning briefing", "The day's most important stories, explained in five minutes, in your inbox before 7am on weekdays."),
    ("Never miss a post", "Join 12,000 readers and get new articles by email once a week. No spam, unsubscribe any time."),
    ("Sign up for our weekend reads", "Long reads, good writing and the week's best photography, every Saturday morning."),
    ("Stay in the loop", "Release announcements, security notices and community news, about twice a month."),
    ("Subscribe to the newsletter", "Seasonal recipes, kitchen tips and a little bit of what is happening in my garden."),
]

FIRST_NAMES = ["Aisha", "Ben", "Carla", "Dmitri", "Eleanor", "Farid", "Grace", "Hiro", "Ines", "Jonas",
               "Kemi", "Liam", "Maya", "Noor", "Oskar", "Priya", "Quentin", "Rosa", "Sam", "Tove"]
LAST_NAMES = ["Okafor", "Lindqvist", "Moreau", "Hughes", "Tanaka", "Brennan", "Castillo", "Novak",
              "Adeyemi", "Fischer", "Walsh", "Kowalski", "Rahman", "Ortega", "Byrne", "Sato"]


def rng_for(slug: str) -> random.Random:
    return random.Random(sum((i + 1) * ord(c) for i, c in enumerate(slug)))


def pick(pool: list, k: int, rng: random.Random) -> list:
    """k items of pool, in a page-specific order (the same every run)."""
    return rng.sample(pool, min(k, len(pool)))


def name(rng: random.Random) -> str:
    return f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}"
