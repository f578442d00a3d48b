# Hand-written stories for the labeled corpus (generate.py). Each entry: topic, day (0 = Monday
# 4 May 2026), hour (UTC), then the headline as its first publisher wrote it, followed by the
# versions other outlets ran of the same report: light edits (a word swapped, added or dropped,
# a clause cut, the order changed) and, marked "~", rewrites (another desk's headline for the
# same report: new structure, other words). People are fictional; companies, teams and places
# are real names used as names.

MAJOR = [
    # politics
    ("politics", 0, 14, [
        "Senate passes $1.2 trillion infrastructure bill after marathon session",
        "Senate approves $1.2 trillion infrastructure bill after all-night session",
        "US Senate passes $1.2tn infrastructure package after marathon debate",
    ]),
    ("politics", 0, 18, [
        "Governor Ruiz signs bill raising state minimum wage to $17 an hour",
        "~Ruiz signs law lifting minimum wage to $17 an hour",
    ]),
    ("politics", 1, 10, [
        "Prime Minister Hollis faces confidence vote after cabinet resignations",
        "Hollis to face confidence vote after wave of cabinet resignations",
        "~PM Hollis faces no-confidence vote as ministers quit",
    ]),
    ("politics", 1, 16, [
        "Supreme Court agrees to hear challenge to state voting maps",
        "Supreme Court will hear challenge to state's congressional voting maps",
    ]),
    ("politics", 2, 9, [
        "EU leaders agree on new migration pact after overnight talks",
        "~EU leaders strike deal on migration pact after all-night summit",
    ]),
    ("politics", 2, 13, [
        "House Speaker Calder unveils stopgap plan to avert government shutdown",
        "Calder unveils stopgap funding plan to avoid shutdown",
        "~Speaker Calder releases short-term spending plan as shutdown looms",
    ]),
    ("politics", 3, 11, [
        "Canada and Mexico announce joint response to new US tariffs",
        "Canada, Mexico announce joint response to US tariffs",
    ]),
    ("politics", 3, 20, [
        "Mayor Okafor announces run for governor in crowded Democratic primary",
        "~Okafor launches bid for governor, joining crowded Democratic field",
    ]),
    ("politics", 4, 8, [
        "Japan's ruling party picks Sato as new leader",
        "~Japan's ruling LDP elects Sato as party leader, clearing path to premiership",
    ]),
    ("politics", 4, 15, [
        "Brazil's Congress approves sweeping tax reform",
        "~Brazilian lawmakers approve sweeping overhaul of tax system",
    ]),
    ("politics", 5, 12, [
        "Thousands march in Paris against pension reform",
        "~Thousands rally in Paris to protest pension reform plans",
        "~Tens of thousands march through Paris against pension changes",
    ]),
    ("politics", 7, 10, [
        "UN Security Council calls emergency meeting on Sudan fighting",
        "~UN Security Council to hold emergency session on Sudan",
    ]),
    ("politics", 7, 17, [
        "Attorney General Brandt announces probe into police department",
        "~Brandt opens federal investigation into city police department",
    ]),
    ("politics", 8, 9, [
        "Germany's coalition agrees on 2027 budget after weeks of wrangling",
        "~German coalition reaches deal on 2027 budget",
    ]),
    ("politics", 8, 14, [
        "Senator Whitfield announces she will not seek re-election",
        "~Whitfield says she won't run for re-election next year",
    ]),
    ("politics", 9, 11, [
        "India and Pakistan agree to reopen border crossing for pilgrims",
        "India, Pakistan to reopen border crossing for Sikh pilgrims",
    ]),
    ("politics", 10, 16, [
        "Parliament votes to lower voting age to 16",
        "~MPs vote to lower the voting age to 16 in general elections",
    ]),
    ("politics", 11, 13, [
        "South Korea's president names new prime minister amid cabinet shake-up",
        "~South Korean president appoints new prime minister in cabinet reshuffle",
    ]),
    ("politics", 14, 10, [
        "Australia announces ban on social media for under-16s to take effect in July",
        "Australia's social media ban for under-16s to start in July",
    ]),
    ("politics", 15, 15, [
        "Poll workers in Arizona complete hand recount of county ballots",
        "~Arizona county finishes hand recount of ballots",
    ]),
    ("politics", 16, 12, [
        "Ukraine and Russia agree on prisoner exchange brokered by Turkey",
        "~Russia and Ukraine agree Turkish-brokered prisoner swap",
        "Ukraine, Russia agree to prisoner exchange mediated by Turkey",
    ]),
    ("politics", 17, 9, [
        "Scottish government publishes plan for second independence referendum",
        "~Holyrood sets out plans for new independence referendum",
    ]),
    ("politics", 18, 18, [
        "City council approves $3.4 billion budget with more money for transit",
        "~Council passes $3.4 billion city budget, boosting transit funding",
    ]),
    # business and markets (one-off)
    ("business", 0, 12, [
        "Boeing to cut production of 737 Max after new quality checks",
        "~Boeing slows 737 Max production following fresh quality inspections",
    ]),
    ("business", 0, 21, [
        "Apple shares slide after iPhone sales miss estimates",
        "iPhone sales miss estimates, sending Apple shares lower",
        "~Apple stock falls as iPhone sales come in below expectations",
    ]),
    ("business", 1, 13, [
        "Tesla recalls 120,000 vehicles over seat belt warning issue",
        "Tesla recalls about 120,000 cars over faulty seat belt warning",
    ]),
    ("business", 1, 20, [
        "Starbucks names new chief executive as turnaround effort stalls",
        "~Starbucks replaces CEO as turnaround stalls",
    ]),
    ("business", 2, 7, [
        "Unilever to sell ice cream business in $15 billion deal",
        "Unilever agrees $15bn sale of ice cream unit",
        "Unilever to sell its ice cream business for $15 billion",
    ]),
    ("business", 2, 19, [
        "Nvidia becomes first company to hit $5 trillion market value",
        "Nvidia hits $5 trillion market value, a first for any company",
    ]),
    ("business", 3, 8, [
        "Shell to cut 3,000 jobs as it scales back low-carbon business",
        "Shell plans 3,000 job cuts as it retreats from low-carbon projects",
    ]),
    ("business", 3, 16, [
        "Amazon to invest $10 billion in North Carolina data centers",
        "Amazon plans $10 billion data center investment in North Carolina",
    ]),
    ("business", 4, 13, [
        "Walmart raises full-year forecast as shoppers seek bargains",
        "~Walmart lifts annual outlook as bargain-hunting shoppers flock to stores",
    ]),
    ("business", 7, 9, [
        "Volkswagen to close two German plants in historic restructuring",
        "~VW to shut two plants in Germany as part of sweeping restructuring",
    ]),
    ("business", 7, 14, [
        "Disney and Fubo agree to combine live TV streaming businesses",
        "Disney, Fubo to merge live TV streaming operations",
    ]),
    ("business", 8, 12, [
        "Airbus delivers record number of jets in April",
        "~Airbus April deliveries hit record high",
    ]),
    ("business", 9, 15, [
        "Pfizer wins approval for new RSV vaccine for older adults",
        "~FDA approves Pfizer's RSV vaccine for older adults",
    ]),
    ("business", 10, 11, [
        "Heathrow expansion gets government go-ahead for third runway",
        "~Government approves third runway at Heathrow",
        "~Heathrow third runway given green light by ministers",
    ]),
    ("business", 11, 10, [
        "Toyota posts record annual profit on strong hybrid sales",
        "Toyota's annual profit hits record as hybrid sales soar",
    ]),
    ("business", 14, 13, [
        "Warner Bros. Discovery to split into two companies",
        "Warner Bros Discovery announces plan to split in two",
    ]),
    ("business", 15, 8, [
        "Royal Mail owner agrees takeover by Czech billionaire's group",
        "Royal Mail's parent accepts takeover by Czech billionaire",
    ]),
    ("business", 16, 17, [
        "Intel shares jump on report of foundry partnership talks",
        "Intel stock surges on report it is in talks over foundry partnership",
    ]),
    ("business", 17, 12, [
        "Etihad orders 28 Boeing and Airbus widebody jets",
        "Etihad places order for 28 widebody jets from Boeing and Airbus",
    ]),
    ("business", 18, 9, [
        "Spotify raises subscription prices in more than 50 markets",
        "Spotify hikes subscription prices across over 50 markets",
    ]),
    # economy releases (one each)
    ("economy", 4, 12, [
        "US economy added 177,000 jobs in April, unemployment steady at 4.2%",
        "US employers added 177,000 jobs in April; jobless rate holds at 4.2%",
        "April jobs report: US adds 177,000 jobs, unemployment rate unchanged at 4.2%",
    ]),
    ("economy", 9, 12, [
        "US inflation eases to 2.3% in April, lowest since 2021",
        "~US consumer prices rise 2.3% in April, slowest pace since 2021",
    ]),
    ("economy", 10, 6, [
        "UK economy grew 0.7% in first quarter, beating forecasts",
        "UK GDP grows 0.7% in first quarter, faster than expected",
    ]),
    ("economy", 15, 9, [
        "Eurozone inflation falls to 2.2% in May",
        "Euro zone inflation drops to 2.2% in May, flash estimate shows",
    ]),
    ("economy", 2, 18, [
        "Fed holds interest rates steady, signals patience on cuts",
        "~Federal Reserve leaves rates unchanged, signals it is in no rush to cut",
        "Fed keeps rates on hold and signals patience on cuts",
    ]),
    ("economy", 3, 11, [
        "Bank of England cuts interest rates to 4% in split vote",
        "Bank of England lowers interest rates to 4% as policymakers split",
    ]),
    # world and disasters
    ("world", 0, 6, [
        "Magnitude 7.1 earthquake strikes off coast of Japan, tsunami warning issued",
        "Strong 7.1 magnitude quake hits off Japan coast, tsunami warning issued",
        "Tsunami warning after magnitude 7.1 earthquake off Japan",
    ]),
    ("world", 1, 4, [
        "Floods in southern Brazil leave dozens dead and thousands displaced",
        "Dozens killed, thousands displaced by floods in southern Brazil",
    ]),
    ("world", 2, 15, [
        "Wildfire forces thousands to evacuate in northern California",
        "Thousands evacuate as wildfire spreads in Northern California",
        "Northern California wildfire forces thousands from their homes",
    ]),
    ("world", 3, 5, [
        "Volcano erupts in Iceland for the ninth time since December",
        "Iceland volcano erupts for ninth time since December",
    ]),
    ("world", 4, 10, [
        "Heatwave in India pushes temperatures above 48C in Delhi",
        "Delhi temperatures top 48C as India heatwave intensifies",
    ]),
    ("world", 5, 22, [
        "Passenger train derails in northern Italy, injuring dozens",
        "Dozens injured as passenger train derails in northern Italy",
    ]),
    ("world", 6, 8, [
        "Cyclone makes landfall in Bangladesh as millions shelter",
        "~Millions take shelter as cyclone hits Bangladesh coast",
    ]),
    ("world", 7, 12, [
        "Rescuers pull survivors from rubble after building collapse in Lagos",
        "Survivors pulled from rubble after Lagos building collapse",
    ]),
    ("world", 8, 3, [
        "Massive blackout leaves much of Spain and Portugal without power",
        "~Huge power outage hits Spain and Portugal",
        "~Spain and Portugal hit by massive blackout",
    ]),
    ("world", 9, 19, [
        "Hostage freed after 18-hour standoff in Marseille",
        "Marseille hostage released after 18-hour standoff with police",
    ]),
    ("world", 10, 2, [
        "Landslide buries village in Papua New Guinea, hundreds feared dead",
        "Hundreds feared dead after landslide buries Papua New Guinea village",
    ]),
    ("world", 11, 14, [
        "Pope calls for ceasefire in Easter address",
        "Pope urges ceasefire in Easter message",
    ]),
    ("world", 14, 7, [
        "Ferry capsizes off Indonesia with more than 100 on board",
        "Ferry carrying over 100 people capsizes off Indonesia",
    ]),
    ("world", 15, 20, [
        "Tornado outbreak tears through Oklahoma and Kansas",
        "Tornadoes rip through Oklahoma, Kansas",
    ]),
    ("world", 16, 9, [
        "Greece battles wildfires on Rhodes as tourists evacuated",
        "~Tourists evacuated as wildfires rage on Greek island of Rhodes",
    ]),
    ("world", 17, 15, [
        "Mexico City hit by record hailstorm, streets flooded",
        "Record hailstorm floods streets in Mexico City",
    ]),
    ("world", 18, 6, [
        "Measles outbreak in Texas grows as officials urge vaccination",
        "Texas measles outbreak grows; health officials urge vaccinations",
    ]),
    ("world", 19, 13, [
        "Kenya's capital hit by fuel shortage as drivers queue for hours",
        "~Drivers queue for hours as fuel shortage hits Nairobi",
    ]),
    # tech
    ("tech", 0, 17, [
        "Apple unveils new iPad Pro with M5 chip",
        "Apple announces iPad Pro powered by M5 chip",
    ]),
    ("tech", 1, 15, [
        "OpenAI releases new model it says can reason through complex tasks",
        "OpenAI launches new AI model designed to reason through complex problems",
    ]),
    ("tech", 2, 16, [
        "Google to pay $1.4 billion to settle Texas privacy lawsuit",
        "Google agrees to pay $1.4bn to settle Texas privacy suit",
        "Google settles Texas privacy lawsuit for $1.4 billion",
    ]),
    ("tech", 3, 14, [
        "Microsoft outage disrupts Outlook and Teams for millions of users",
        "Outlook and Teams hit by Microsoft outage affecting millions",
    ]),
    ("tech", 4, 18, [
        "EU fines Meta over 'pay or consent' model",
        "Meta fined by EU over pay-or-consent advertising model",
    ]),
    ("tech", 7, 13, [
        "SpaceX Starship completes first full orbit and splashes down",
        "Starship completes first full orbit before splashdown",
    ]),
    ("tech", 8, 16, [
        "TikTok sale to US investors approved by Chinese regulators",
        "Chinese regulators approve sale of TikTok's US operations",
    ]),
    ("tech", 9, 14, [
        "Nintendo says Switch 2 sold 6 million units in first month",
        "Switch 2 sales hit 6 million in first month, Nintendo says",
    ]),
    ("tech", 10, 17, [
        "Samsung unveils Galaxy Z Fold 8 with thinner design",
        "~Samsung's Galaxy Z Fold 8 is thinner and lighter",
    ]),
    ("tech", 11, 15, [
        "Cyberattack on Marks & Spencer disrupts online orders",
        "~M&S online orders halted after cyberattack",
        "Marks and Spencer hit by cyberattack, online orders suspended",
    ]),
    ("tech", 14, 16, [
        "Amazon unveils Alexa+ with generative AI features",
        "Amazon launches Alexa+ powered by generative AI",
    ]),
    ("tech", 15, 14, [
        "Meta to let users opt out of AI training in Europe",
        "Meta will allow European users to opt out of AI training",
    ]),
    ("tech", 16, 18, [
        "Netflix crashes during live boxing event as millions tune in",
        "~Netflix streaming glitches as millions watch live boxing event",
    ]),
    ("tech", 17, 11, [
        "Japan's Rakuten launches satellite phone service",
        "Rakuten begins satellite-to-phone service in Japan",
    ]),
    ("tech", 18, 15, [
        "US bans sales of new Chinese-made connected cars",
        "~US moves to ban Chinese software and hardware in connected cars",
    ]),
    # science and health
    ("science", 1, 18, [
        "NASA's Europa Clipper captures first images of Jupiter's moon",
        "Europa Clipper sends back first images of Jupiter moon Europa",
    ]),
    ("science", 3, 18, [
        "WHO declares end to mpox global health emergency",
        "~World Health Organization says mpox no longer a global health emergency",
    ]),
    ("science", 5, 14, [
        "Scientists discover new species of giant tortoise in Galapagos",
        "New giant tortoise species found in the Galapagos Islands",
    ]),
    ("science", 8, 19, [
        "Blood test detects Alzheimer's with 90% accuracy, study finds",
        "Simple blood test can detect Alzheimer's with 90% accuracy, study shows",
    ]),
    ("science", 10, 13, [
        "Record low Antarctic sea ice alarms scientists",
        "Scientists alarmed as Antarctic sea ice hits record low",
    ]),
    ("science", 14, 19, [
        "Weight-loss drug cuts risk of heart attack by 20% in large trial",
        "~Obesity drug reduces heart attack risk by 20%, trial finds",
    ]),
    ("science", 16, 11, [
        "Bird flu detected in dairy cattle in two more states",
        "Two more states report bird flu in dairy herds",
    ]),
    ("science", 19, 17, [
        "Hubble spots most distant single star ever seen",
        "~Astronomers using Hubble find most distant star ever observed",
    ]),
    # culture and entertainment
    ("culture", 2, 11, [
        "Taylor Swift announces surprise album release",
        "Taylor Swift surprises fans with new album announcement",
    ]),
    ("culture", 6, 20, [
        "'Sinners' tops box office for third straight weekend",
        "Sinners leads box office for third consecutive weekend",
    ]),
    ("culture", 9, 21, [
        "Cannes film festival opens with tribute to director Lina Moreau",
        "Cannes opens with tribute to Lina Moreau",
    ]),
    ("culture", 12, 21, [
        "Eurovision 2026: Sweden wins with power ballad",
        "Sweden wins Eurovision Song Contest 2026",
    ]),
    ("culture", 15, 12, [
        "Veteran actor Desmond Rourke dies aged 89",
        "~Desmond Rourke, star of stage and screen, dies at 89",
    ]),
    ("culture", 17, 19, [
        "Booker Prize shortlist announced, with three debut novels",
        "Three debut novels make Booker Prize shortlist",
    ]),
    # sports (non-score)
    ("sports", 1, 19, [
        "Jurgen Klopp named new manager of Germany's national team",
        "~Klopp appointed Germany head coach",
    ]),
    ("sports", 4, 21, [
        "Serena Vance announces retirement from professional tennis",
        "~Tennis star Serena Vance retires",
    ]),
    ("sports", 8, 15, [
        "FIFA confirms 2034 World Cup will be held in Saudi Arabia",
        "Saudi Arabia confirmed as 2034 World Cup host by FIFA",
    ]),
    ("sports", 11, 18, [
        "Mbappe ruled out for six weeks with thigh injury",
        "Kylian Mbappe out for six weeks with thigh injury",
    ]),
    ("sports", 14, 12, [
        "Olympic committee picks Brisbane venue plan after review",
        "IOC approves Brisbane 2032 venue plan following review",
    ]),
    ("sports", 16, 20, [
        "Manchester United sack manager after poor run of results",
        "Man United fire manager following poor run of form",
    ]),
    ("sports", 18, 13, [
        "NFL approves new kickoff rules for 2026 season",
        "NFL owners vote to approve new kickoff rule for 2026",
    ]),
]

# Non-English stories (French, German, Spanish) and Japanese: accents and scripts.
FOREIGN = [
    ("world", 3, 9, [
        "Réforme des retraites : le gouvernement recourt au 49.3",
        "Reforme des retraites: le gouvernement recourt au 49.3",
    ]),
    ("world", 6, 10, [
        "Grève à la SNCF : trafic très perturbé ce lundi",
        "Grève SNCF : le trafic très perturbé lundi",
    ]),
    ("world", 9, 8, [
        "Bundestag beschließt neues Heizungsgesetz",
        "Bundestag beschliesst neues Heizungsgesetz",
    ]),
    ("world", 12, 9, [
        "El Gobierno aprueba la subida del salario mínimo a 1.200 euros",
        "El Gobierno aprueba subir el salario mínimo a 1.200 euros",
    ]),
    ("world", 5, 3, [
        "東京で大規模な火災が発生、けが人なし",
        "東京で大規模火災が発生 けが人なし",
    ]),
    ("world", 13, 2, [
        "日本銀行、政策金利を据え置き",
        "日銀、政策金利の据え置きを決定",
    ]),
]

# One-off items nobody else ran: they must stay alone.
SINGLES = [
    ("local", "City library to extend opening hours over the summer"),
    ("local", "New bike lanes open on Market Street after two years of work"),
    ("local", "Residents oppose plan for 12-storey tower near the harbour"),
    ("local", "School district names new superintendent"),
    ("local", "Farmers market moves to new site downtown"),
    ("local", "Historic theatre reopens after $8 million restoration"),
    ("local", "Council approves plan to plant 5,000 trees along ring road"),
    ("local", "Water main break closes part of Elm Avenue"),
    ("local", "Zoo welcomes birth of rare snow leopard cubs"),
    ("local", "Bus fares to rise by 10 cents from July"),
    ("local", "Volunteers clean up river after spring floods"),
    ("local", "High school robotics team heads to world championship"),
    ("local", "Parking meters to accept app payments from next month"),
    ("local", "Local bakery wins national award for sourdough"),
    ("local", "Street festival returns after five-year break"),
    ("business", "Small businesses struggle with rising insurance costs"),
    ("business", "Why commercial property values keep falling"),
    ("business", "Coffee prices hit highest level in decades"),
    ("business", "Airline adds new routes to southern Europe for summer"),
    ("business", "Electric van maker files for bankruptcy protection"),
    ("business", "Supermarket chain to add 2,000 self-checkout lanes"),
    ("business", "Luxury watch sales slow as demand in China cools"),
    ("business", "Toy maker warns tariffs could raise prices for holidays"),
    ("business", "Chocolate makers raise prices again as cocoa costs soar"),
    ("business", "Office landlord sells tower at steep discount"),
    ("tech", "How to tell if your phone has been hacked"),
    ("tech", "Review: a budget laptop that does almost everything right"),
    ("tech", "The best password managers for 2026"),
    ("tech", "Startup raises $40 million to build battery recycling plants"),
    ("tech", "Open-source project drops support for 32-bit systems"),
    ("tech", "Browser maker adds built-in VPN to free tier"),
    ("tech", "Researchers find flaw in popular smart lock"),
    ("tech", "Developers report outage at code hosting service"),
    ("tech", "Why your streaming bill keeps going up"),
    ("science", "Octopuses can learn by watching each other, study suggests"),
    ("science", "Ancient shipwreck found off coast of Sicily"),
    ("science", "Why spring allergies are getting worse"),
    ("science", "Mars rover finds rock with unusual layered pattern"),
    ("science", "Researchers map the brain of a fruit fly in full detail"),
    ("science", "Honeybee colonies suffered record losses last winter"),
    ("culture", "Museum returns looted bronze statues to Nigeria"),
    ("culture", "Indie game about a lighthouse keeper becomes surprise hit"),
    ("culture", "Best new books to read this month"),
    ("culture", "Jazz festival announces lineup for its 40th year"),
    ("culture", "Long-lost painting rediscovered in attic sells for $2 million"),
    ("culture", "Broadway musical to close after 12 years"),
    ("culture", "Podcast host signs deal with streaming platform"),
    ("sports", "Marathon organisers add extra water stations after heat complaints"),
    ("sports", "Cricket board announces new women's franchise league"),
    ("sports", "Golf club votes to admit women members for the first time"),
    ("sports", "Cyclist breaks hour record at altitude velodrome"),
    ("sports", "Olympic swimmer opens up about mental health struggles"),
    ("sports", "Chess prodigy, 12, becomes youngest grandmaster"),
    ("world", "Village in Alps asks tourists to stop flying drones"),
    ("world", "Rare white giraffe spotted in Kenya reserve"),
    ("world", "Paris to ban cars from more streets around the Seine"),
    ("world", "Venice extends day-tripper fee to more dates"),
    ("world", "Norway opens world's longest road tunnel under the sea"),
    ("world", "Iceland to offer four-day week to public sector workers"),
    ("politics", "What the new budget means for your taxes"),
    ("politics", "Five things to watch in this week's primaries"),
    ("politics", "Analysis: the quiet race that could decide the Senate"),
    ("politics", "Lawmakers debate ban on stock trading by members of Congress"),
    ("politics", "How redistricting is reshaping the midterms"),
]

# Follow-ups: the same people, companies and places in the hours and days after a story above,
# a different event each (reaction, aftermath, analysis). They share names and words with the
# story they follow and must stay apart from it.
FOLLOWUPS = [
    ("politics", 1, 9, ["What's in the $1.2 trillion infrastructure bill the Senate just passed",
                        "Here's what's in the Senate's $1.2 trillion infrastructure bill"]),
    ("politics", 1, 15, ["House to vote on infrastructure bill next week, Speaker Calder says"]),
    ("politics", 2, 20, ["Prime Minister Hollis survives confidence vote",
                         "Hollis survives confidence vote as rebels fall short"]),
    ("politics", 3, 8, ["Who could replace Hollis? The contenders to lead the party"]),
    ("politics", 3, 18, ["Shutdown averted as Congress passes stopgap funding bill",
                         "Congress passes stopgap bill, averting government shutdown"]),
    ("politics", 6, 7, ["Police clash with protesters in Paris after pension march"]),
    ("politics", 17, 10, ["Russia and Ukraine complete prisoner exchange",
                          "~Ukraine and Russia carry out prisoner swap"]),
    ("business", 1, 7, ["Boeing shares fall after production cut",
                        "Boeing stock drops after it slows 737 Max production"]),
    ("business", 2, 16, ["FAA to review Boeing 737 Max quality checks"]),
    ("business", 1, 14, ["Apple's new iPhone lineup: what analysts expect after sales miss"]),
    ("business", 2, 10, ["Tesla faces federal probe over seat belt warnings",
                         "~Regulators open probe into Tesla seat belt warnings"]),
    ("business", 3, 12, ["Unilever shares rise after ice cream sale",
                         "Unilever stock gains after agreeing ice cream deal"]),
    ("business", 3, 14, ["Nvidia's $5 trillion milestone: how it got here"]),
    ("business", 8, 15, ["Volkswagen workers strike over plant closures",
                         "~VW workers walk out in protest at plant closures"]),
    ("business", 11, 9, ["Heathrow third runway faces legal challenge from councils"]),
    ("economy", 3, 12, ["Markets rally after Fed holds rates steady",
                        "~Stocks climb after Federal Reserve holds rates"]),
    ("economy", 4, 7, ["Fed officials divided over timing of rate cuts, minutes show"]),
    ("economy", 3, 15, ["Pound falls after Bank of England rate cut",
                        "Sterling slips after Bank of England cuts rates"]),
    ("economy", 5, 9, ["Wall Street reacts to April jobs report"]),
    ("world", 0, 14, ["Japan lifts tsunami warning after earthquake",
                      "Tsunami warning lifted in Japan after quake"]),
    ("world", 1, 2, ["Aftershocks rattle Japan a day after strong earthquake"]),
    ("world", 3, 16, ["Northern California wildfire now 40% contained",
                      "Crews make progress on Northern California wildfire, now 40% contained"]),
    ("world", 4, 20, ["Evacuation orders lifted as California wildfire slows"]),
    ("world", 9, 8, ["Power restored to most of Spain and Portugal after blackout",
                     "~Most of Spain and Portugal has power again after huge outage"]),
    ("world", 9, 15, ["What caused the blackout in Spain and Portugal?"]),
    ("world", 2, 12, ["Brazil floods: death toll rises as rescuers search for missing"]),
    ("world", 11, 8, ["Papua New Guinea landslide: aid arrives as survivors dig through rubble"]),
    ("world", 15, 9, ["Indonesia ferry: search continues for missing passengers"]),
    ("world", 16, 14, ["Oklahoma and Kansas begin clean-up after tornado outbreak"]),
    ("tech", 1, 12, ["Hands-on with Apple's new iPad Pro"]),
    ("tech", 1, 9, ["Apple shares rise after iPad Pro launch"]),
    ("tech", 4, 10, ["Microsoft says Outlook and Teams outage is fixed",
                     "~Microsoft restores Outlook and Teams after outage"]),
    ("tech", 5, 9, ["Meta to appeal EU fine over pay or consent model"]),
    ("tech", 8, 10, ["SpaceX sets date for next Starship flight"]),
    ("tech", 12, 9, ["Marks & Spencer says online orders will resume next week",
                     "~M&S to restart online orders next week after cyberattack"]),
    ("tech", 17, 14, ["Netflix apologises for streaming problems during boxing event"]),
    ("culture", 3, 9, ["Taylor Swift's new album breaks streaming records",
                       "Taylor Swift album smashes streaming records"]),
    ("culture", 16, 9, ["Tributes paid to Desmond Rourke"]),
    ("sports", 2, 11, ["What Klopp's appointment means for Germany"]),
    ("sports", 12, 10, ["Real Madrid confirm Mbappe will miss Champions League semi-final"]),
    ("sports", 17, 9, ["Who will be the next Manchester United manager?"]),
]
