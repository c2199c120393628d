"""Coffee: espresso extraction, arabica and robusta, brewing temperature, caffeine and sleep."""

TOPIC = "coffee"

QUERIES = [
    ("q15", "how does espresso extraction work"),
    ("q16", "arabica vs robusta"),
    ("q17", "best water temperature for pour over coffee"),
    ("q18", "how does caffeine affect sleep"),
]

TRAIN = [
    ("t029", "paraphrase", "espresso shot extraction time and pressure"),
    ("t030", "paraphrase", "difference between arabica and robusta coffee beans"),
    ("t031", "related", "light roast versus dark roast flavour"),
    ("t032", "related", "how to make cold brew coffee"),
    ("t033", "unlike", "history of coffee and its origins in Ethiopia"),
    ("t034", "unlike", "how is decaffeinated coffee made"),
    ("t035", "paraphrase", "what water temperature to brew coffee"),
]

DOCS = [
    ("cof01", "Espresso basics", [
        "Espresso is made by forcing hot water through a tightly packed puck of finely ground coffee at about nine bars of pressure.",
        "The pressure pushes water through the grounds in roughly twenty five to thirty seconds, dissolving oils, acids, sugars and bitter compounds.",
        "The result is a small, concentrated drink topped with crema, a foam of emulsified oils and carbon dioxide.",
        "A standard double shot uses about eighteen grams of coffee and yields around thirty six grams of liquid.",
    ], {"q15": "3:0,1,2,3", "t029": 3, "q17": 0}),
    ("cof02", "Under and over extraction", [
        "Extraction describes how much of the coffee's soluble material ends up in the cup.",
        "Under-extracted espresso runs too fast and tastes sour and thin, because the acids dissolve first.",
        "Over-extracted espresso runs too slowly and tastes bitter and harsh, since the last compounds to dissolve are the least pleasant.",
        "Baristas aim for roughly eighteen to twenty two percent of the dry coffee to be extracted.",
    ], {"q15": "3:0,1,2,3", "t029": 2}),
    ("cof03", "Dialling in the grinder", [
        "The main tool a barista uses to control extraction is the grind size.",
        "A finer grind slows the flow of water and increases extraction, while a coarser grind speeds it up.",
        "Each new bag of beans usually needs a few test shots to dial in the grinder.",
        "Even humidity and the age of the beans can shift the ideal setting during the day.",
    ], {"q15": "3:0,1", "t029": 2}),
    ("cof04", "Channeling", [
        "Channeling happens when water finds a weak path through the coffee puck and rushes through it.",
        "The coffee along the channel is over-extracted while the rest is barely touched, so the shot tastes both sour and bitter.",
        "Even distribution of the grounds and a level tamp reduce channeling.",
        "Bottomless portafilters let baristas see channels as thin jets spraying from the basket.",
    ], {"q15": "2:0,1", "t029": 1}),
    ("cof05", "Pressure profiling", [
        "Most espresso machines apply a constant nine bars of pressure, but some let the barista vary it during the shot.",
        "A gentle pre-infusion at low pressure wets the puck evenly before full pressure is applied.",
        "Lowering the pressure toward the end can soften bitterness.",
        "Lever machines produce a naturally declining pressure as the spring relaxes.",
    ], {"q15": "2:0,1,2", "t029": 3}),
    ("cof06", "Moka pot", [
        "A moka pot brews strong coffee on the stove by pushing boiling water up through the grounds with steam pressure.",
        "It reaches only about one to two bars, far below an espresso machine, so it does not produce true espresso or much crema.",
        "Taking the pot off the heat as soon as it starts gurgling avoids a burnt taste.",
    ], {"q15": 1, "t029": 0}),
    ("cof07", "Two species of coffee", [
        "Almost all the coffee we drink comes from two species, Coffea arabica and Coffea canephora, usually called robusta.",
        "Arabica makes up around sixty percent of world production and is prized for its sweetness, acidity and complex aromas.",
        "Robusta is more bitter and earthy, but it has roughly twice as much caffeine.",
        "The extra caffeine and chlorogenic acids help protect the robusta plant against insects.",
    ], {"q16": "3:0,1,2,3", "t030": 3, "q18": 0}),
    ("cof08", "Growing conditions", [
        "Arabica grows best at high altitudes, often above one thousand metres, in cool tropical highlands.",
        "It is sensitive to frost, heat and disease, which makes it expensive to farm.",
        "Robusta tolerates heat and lowlands, yields more per tree and resists the coffee leaf rust fungus.",
        "Vietnam is the largest producer of robusta, while Brazil leads the world in arabica.",
    ], {"q16": "3:0,1,2,3", "t030": 3}),
    ("cof09", "Robusta in espresso blends", [
        "Italian espresso blends often include ten to twenty percent robusta.",
        "It adds body, a thick crema and a bitter, chocolatey edge that holds up well in milk drinks.",
        "Specialty roasters usually prefer pure arabica, but high quality fine robusta is gaining attention.",
        "Instant coffee is mostly made from robusta because it is cheaper.",
    ], {"q16": "3:0,1,2,3", "t030": 2, "q15": 0}),
    ("cof10", "Bean shape", [
        "Arabica and robusta beans can often be told apart by eye.",
        "Arabica beans are oval with a curved crease down the middle, while robusta beans are smaller, rounder and have a straighter crease.",
        "After roasting, the difference in colour is small, so shape is the easier clue.",
        "Smell the beans too, since robusta often has a rubbery note.",
    ], {"q16": "2:0,1", "t030": 2}),
    ("cof11", "Varieties of arabica", [
        "Within arabica there are many varieties, such as Typica, Bourbon, Caturra and Geisha.",
        "Geisha, originally from Ethiopia and made famous by farms in Panama, is known for floral, tea-like flavours and sells for record prices.",
        "Breeders also cross varieties to combine good flavour with disease resistance.",
        "Tasting the same variety from different farms shows how much soil and altitude shape the cup.",
    ], {"q16": 1, "t033": 1}),
    ("cof12", "Water temperature for brewing", [
        "Most brewing guides recommend water between ninety and ninety six degrees Celsius, just off the boil.",
        "Hotter water extracts faster, so it suits light roasts that are harder to extract.",
        "Dark roasts dissolve easily and can taste bitter with very hot water, so a few degrees cooler works better.",
        "Letting the kettle rest for about thirty seconds after boiling brings it into the usual range.",
    ], {"q17": "3:0,1,2,3", "t035": 3}),
    ("cof13", "Pour over technique", [
        "Pour over coffee is made by pouring hot water slowly over grounds in a paper filter cone, such as a V60 or Chemex.",
        "Start with a bloom: wet the grounds with about twice their weight in water and wait thirty seconds so trapped gas can escape.",
        "Then pour in slow spirals to the target weight, aiming for a total brew time of about three minutes.",
        "A gooseneck kettle makes the pour easier to control.",
    ], {"q17": "2:0,1", "t035": 1}),
    ("cof14", "Temperature and the kettle", [
        "Variable temperature kettles let home brewers set the water to the exact degree for pour over.",
        "Water poured from a regular kettle cools by several degrees in the time it takes to reach the cone, so many baristas start at ninety six.",
        "Preheating the dripper and the cup keeps the slurry from losing too much heat during brewing.",
        "A thermometer helps beginners learn how quickly water cools.",
    ], {"q17": "3:0,1,2", "t035": 3}),
    ("cof15", "Brewing ratio", [
        "A common starting ratio for filter coffee is about sixty grams of coffee per litre of water.",
        "Weighing both with a scale makes results repeatable far better than scoops.",
        "If the cup tastes weak but not sour, add more coffee; if it tastes strong and heavy, use less.",
        "Small changes of a few grams are easy to notice.",
    ], {"q17": 1, "t035": 0}),
    ("cof16", "Water chemistry", [
        "Brewed coffee is about ninety eight percent water, so the water itself matters.",
        "Very soft water extracts poorly and tastes flat, while very hard water mutes acidity and leaves scale in machines.",
        "Many cafés filter their water to a moderate mineral content, and some home brewers add minerals to distilled water.",
    ], {"q17": "2:0,1", "t035": 1}),
    ("cof17", "Caffeine and sleep", [
        "Caffeine keeps us awake by blocking adenosine, a chemical that builds up in the brain during the day and makes us feel sleepy.",
        "Its half-life in adults is around five hours, so half of an afternoon coffee is still active at bedtime.",
        "Studies show that caffeine taken six hours before bed can cut total sleep time by about an hour and reduce deep sleep.",
        "Many people do not notice this effect, even though their sleep is lighter.",
        "Caffeine can also increase the number of times a person wakes during the night, especially in older adults.",
        "Because tiredness the next day tempts people to drink even more coffee, a cycle of poor sleep and high caffeine intake can develop.",
    ], {"q18": "3:0,1,2,3,4,5"}),
    ("cof18", "Caffeine sensitivity", [
        "People differ widely in how fast they clear caffeine.",
        "Variants of the CYP1A2 liver enzyme make some people fast metabolisers, while slow metabolisers feel a single cup for many hours.",
        "Pregnancy and some medicines slow caffeine breakdown, while smoking speeds it up.",
        "Sleep experts generally advise stopping caffeine by early afternoon.",
    ], {"q18": "3:1,3"}),
    ("cof19", "How much caffeine is in a cup", [
        "An average cup of brewed coffee contains around eighty to one hundred milligrams of caffeine, and a single espresso about sixty.",
        "Health agencies consider up to four hundred milligrams a day safe for most adults.",
        "Tea, cola and chocolate also contain caffeine, in smaller amounts.",
        "The caffeine content of coffee varies a great deal with the beans and brewing method.",
    ], {"q18": 1, "q16": 1}),
    ("cof20", "Tolerance and withdrawal", [
        "Regular coffee drinkers build a tolerance as the brain makes more adenosine receptors.",
        "Stopping suddenly then causes withdrawal headaches, tiredness and low mood for a few days.",
        "Cutting down gradually over a week or two avoids most of these symptoms.",
        "Tolerance also means that the morning cup mostly relieves withdrawal rather than adding alertness.",
    ], {"q18": 1, "t034": 0}),
    ("cof21", "Caffeine naps", [
        "A caffeine nap means drinking a coffee and immediately lying down for fifteen to twenty minutes.",
        "Caffeine takes about that long to reach the brain, so you wake up just as it starts working while the nap has cleared some adenosine.",
        "Drivers and shift workers use the trick to stay alert, but it does not replace a full night of sleep.",
    ], {"q18": "2:1,2"}),
    ("cof22", "Roast levels", [
        "Roasting turns green coffee seeds brown and creates hundreds of aroma compounds.",
        "Light roasts keep more of the origin character, with bright acidity and fruity or floral notes.",
        "Dark roasts taste of the roast itself, with smoky, bitter chocolate flavours and less acidity.",
        "Contrary to popular belief, dark roasts do not contain much more caffeine than light ones.",
    ], {"t031": 3, "q18": 0, "q16": 0, "q17": 0}),
    ("cof23", "First crack", [
        "During roasting, beans make a popping noise called first crack as moisture turns to steam and breaks the cell walls.",
        "Light roasts are dropped shortly after first crack, while dark roasts continue until a second, quieter crack.",
        "Roasters track time and temperature closely, since a minute can change the flavour greatly.",
        "Home roasters often start with a popcorn machine.",
    ], {"t031": 2}),
    ("cof24", "Cold brew", [
        "Cold brew is made by steeping coarse coffee grounds in cold or room temperature water for twelve to twenty four hours.",
        "The low temperature extracts fewer acids and bitter compounds, so the concentrate is smooth and sweet.",
        "It is filtered and usually diluted with water or milk before serving.",
        "Iced coffee, by contrast, is brewed hot and then cooled.",
    ], {"t032": 3, "q17": 1}),
    ("cof25", "Japanese iced coffee", [
        "Japanese style iced coffee is brewed hot directly onto ice.",
        "About a third of the brewing water is replaced with ice in the carafe, so the coffee chills instantly and keeps its bright aromas.",
        "Many prefer it to cold brew because it tastes livelier, and it takes minutes rather than a day.",
    ], {"t032": 2, "q17": 1}),
    ("cof26", "Origins in Ethiopia", [
        "Coffee plants grow wild in the forests of southwestern Ethiopia, where arabica is thought to have originated.",
        "A popular legend tells of a goatherd named Kaldi who noticed his goats dancing after eating the red cherries.",
        "By the fifteenth century coffee was being cultivated in Yemen and drunk in Sufi monasteries to stay awake during night prayers.",
        "From Yemen the drink spread to Mecca, Cairo and Istanbul, and the port of Mocha gave its name to a style of coffee.",
    ], {"t033": 3, "q16": 1}),
    ("cof27", "Coffee houses", [
        "Coffee houses spread from Istanbul to Europe in the seventeenth century.",
        "In London they became known as penny universities, since anyone could listen to lively debates for the price of a cup.",
        "Lloyd's insurance market began in one such coffee house.",
        "Vienna's coffee houses later became famous meeting places for writers and musicians.",
    ], {"t033": 2, "q35": 0}),
    ("cof28", "Decaffeination", [
        "Decaf coffee is made by removing caffeine from green beans before roasting.",
        "In the Swiss Water process, beans are soaked in water saturated with coffee solubles, so only caffeine leaves the beans and is trapped by carbon filters.",
        "Other methods use solvents such as ethyl acetate or supercritical carbon dioxide.",
        "Decaf still contains a few milligrams of caffeine per cup.",
    ], {"t034": 3, "q18": 1}),
    ("cof29", "Coffee and health", [
        "Large studies link moderate coffee drinking with a lower risk of type two diabetes, liver disease and Parkinson's disease.",
        "These are observational findings, so they cannot prove that coffee itself is the cause.",
        "Unfiltered coffee, such as French press, contains oils that can raise cholesterol slightly.",
        "For most healthy adults three to four cups a day appears safe.",
    ], {"q18": 0}),
    ("cof30", "French press", [
        "A French press steeps coarse grounds in hot water for about four minutes before a metal mesh plunger separates them.",
        "Because nothing absorbs the oils, the coffee is full-bodied with some fine sediment.",
        "Water just off the boil works well, and a gentle stir after adding it helps even extraction.",
        "Pour it all out once plunged, since the coffee keeps extracting.",
    ], {"q17": 1, "t035": 2}),
    ("cof31", "Coffee leaf rust", [
        "Coffee leaf rust is a fungus that covers leaves with orange powder and makes them drop, weakening the plant.",
        "An outbreak in Central America from 2012 cut harvests sharply and pushed many small farmers into debt.",
        "Resistant varieties, many with some robusta ancestry, are now widely planted.",
        "Rising temperatures are expected to spread the disease further uphill.",
    ], {"q16": 1, "q33": 0}),
    ("cof32", "Milk steaming", [
        "Baristas steam milk by injecting hot steam through a wand just below the surface.",
        "Steam stretches the milk with fine bubbles first, then the wand is lowered to spin the milk into a silky microfoam.",
        "Milk should stop at about sixty to sixty five degrees Celsius; hotter milk loses its sweetness.",
        "Good microfoam is what allows latte art.",
    ], {"q15": 0, "q17": 0}),
]
