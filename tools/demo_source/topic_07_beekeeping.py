"""Beekeeping: honey making, varroa mites, honey harvest, swarming (plus queens, winter, waggle dance)."""

TOPIC = "beekeeping"

QUERIES = [
    ("q22", "how do bees make honey"),
    ("q23", "varroa mite treatment"),
    ("q24", "how to harvest honey from a hive"),
    ("q25", "why do honeybees swarm"),
]

TRAIN = [
    ("t043", "paraphrase", "how honey is produced by honeybees from nectar"),
    ("t044", "paraphrase", "controlling varroa mites in beehives"),
    ("t045", "related", "what does the queen bee do in a colony"),
    ("t046", "related", "preparing a beehive for winter"),
    ("t047", "unlike", "how do bees communicate with the waggle dance"),
    ("t048", "unlike", "uses of beeswax"),
    ("t049", "paraphrase", "reasons a bee colony swarms"),
]

DOCS = [
    ("bee01", "From nectar to honey", [
        "Honey begins as nectar, a thin sugary liquid that flowers produce to attract pollinators.",
        "Forager bees suck up nectar and carry it back in a special honey stomach, where enzymes start to break sucrose down into glucose and fructose.",
        "In the hive they pass it to house bees, who deposit it in wax cells.",
        "The bees then fan their wings to evaporate water until the honey contains less than about eighteen percent moisture, and finally cap the cell with wax.",
    ], {"q22": "3:0,1,2,3", "t043": 3}),
    ("bee02", "Enzymes in honey", [
        "Bees add the enzyme invertase to nectar, which splits sucrose into simpler sugars.",
        "They also add glucose oxidase, which produces small amounts of hydrogen peroxide and gluconic acid.",
        "Together with the low water content and high sugar, these make honey acidic and hostile to microbes, so it keeps almost indefinitely.",
        "Jars of edible honey have been found in ancient Egyptian tombs.",
    ], {"q22": "3:0,1,2", "t043": 3}),
    ("bee03", "How much work a jar takes", [
        "A single worker bee makes only about a twelfth of a teaspoon of honey in her whole life.",
        "To produce one kilogram of honey, a colony's foragers may visit several million flowers and fly a distance equal to several trips around the world.",
        "A strong colony can still store well over twenty kilograms in a good season.",
        "Honey is the colony's food for winter, when no flowers bloom.",
    ], {"q22": "2:0,1", "t043": 2, "t046": 1}),
    ("bee04", "Flavour and colour of honey", [
        "The taste and colour of honey depend on the flowers the bees visited.",
        "Clover and acacia give pale, mild honey, while buckwheat and heather give dark, strong honey.",
        "Single-flower honeys come from hives placed near large areas of one crop, such as orange groves or lavender fields.",
        "Most honey crystallises over time, which is natural and can be reversed with gentle warmth.",
    ], {"q22": 1, "t043": 1}),
    ("bee05", "Honeydew honey", [
        "Not all honey comes from flowers.",
        "In some forests bees collect honeydew, the sweet liquid excreted by aphids and other insects feeding on the sap of trees.",
        "The bees process it into a dark, mineral-rich honey that is popular in central Europe and Greece.",
        "It crystallises slowly and tastes less sweet than flower honey.",
    ], {"q22": "2:1,2", "t043": 2}),
    ("bee06", "The varroa mite", [
        "Varroa destructor is a parasitic mite that feeds on honeybees and their developing brood.",
        "It weakens the bees and spreads viruses, especially deformed wing virus.",
        "An untreated colony usually collapses within two or three years, so nearly every beekeeper in the world now has to manage varroa.",
        "The mite jumped to the western honeybee from the Asian honeybee during the twentieth century.",
    ], {"q23": "2:2", "t044": 2}),
    ("bee07", "Monitoring mite levels", [
        "Before treating, beekeepers measure how many mites a colony carries.",
        "In an alcohol wash or sugar roll, about three hundred bees are shaken in a jar and the dislodged mites are counted.",
        "More than three mites per hundred bees in late summer is a common threshold for treatment.",
        "Sticky boards under a mesh floor give a rougher estimate by catching mites that fall.",
    ], {"q23": "3:0,2", "t044": 3}),
    ("bee08", "Organic acid treatments", [
        "Oxalic acid and formic acid are widely used to treat varroa.",
        "Oxalic acid is trickled or vaporised into the hive in winter, when the colony has little or no brood and the mites are exposed on adult bees.",
        "Formic acid is the only common treatment that also kills mites inside capped brood cells, but it must be used within a narrow temperature range.",
        "Both occur naturally in honey at low levels.",
    ], {"q23": "3:0,1,2", "t044": 3}),
    ("bee09", "Thymol and synthetic miticides", [
        "Thymol, an extract of thyme oil, is applied in gel trays in late summer and works well when the weather is warm.",
        "Synthetic miticides such as amitraz strips are very effective, but mites have become resistant to some older products.",
        "Beekeepers are advised to rotate treatments and never to apply them while honey for harvest is on the hive.",
    ], {"q23": "3:0,1,2", "t044": 3, "q24": 0}),
    ("bee10", "Non-chemical mite control", [
        "Varroa mites prefer to breed in drone brood, which takes longer to develop.",
        "Beekeepers can insert a frame for drone comb, let the mites move in, and then cut out and destroy the capped drone cells.",
        "Interrupting the brood cycle, for example by caging the queen for a few weeks, also leaves the mites with nowhere to hide.",
        "Breeders are selecting bees that detect and remove infested brood themselves.",
    ], {"q23": "3:0,1,2,3", "t044": 3}),
    ("bee11", "Harvesting honey", [
        "Honey is ready to harvest when most cells in a frame are capped with wax, which shows the moisture is low enough.",
        "Beekeepers clear bees from the honey boxes with a one-way escape board or a gentle blower, then remove the frames.",
        "The wax cappings are sliced off with a hot knife or scratched open with a fork.",
        "The frames are spun in an extractor, which flings honey out by centrifugal force while leaving the comb intact for reuse.",
        "Wet frames can be returned to the hive for the bees to clean before they are stored for winter.",
        "A clean, warm room and a tidy workflow keep the harvest from turning into a sticky mess.",
    ], {"q24": "3:0,1,2,3,4"}),
    ("bee12", "Straining and bottling", [
        "Honey from the extractor still contains bits of wax and the odd bee leg.",
        "It is poured through a double sieve or cloth strainer and left to settle for a day or two so air bubbles rise to the top.",
        "It is then bottled in clean, dry jars.",
        "Honey with too much water can ferment, so some beekeepers check it with a refractometer before bottling.",
    ], {"q24": "3:1,2,3"}),
    ("bee13", "How much honey to leave", [
        "A responsible beekeeper never takes all the honey.",
        "In cooler climates a colony needs around fifteen to twenty five kilograms of stores to survive the winter.",
        "If too much is harvested, the bees must be fed thick sugar syrup in autumn to make up the difference.",
        "Many beekeepers take only from the supers above the brood box.",
    ], {"q24": "2:0,1,2", "t046": 2}),
    ("bee14", "Comb honey", [
        "Some beekeepers sell honey still in the comb.",
        "The bees build fresh comb in thin wooden sections or frames without wire, and the whole block is cut out and packed once it is capped.",
        "Comb honey cannot be extracted and the wax is eaten along with the honey, so it fetches a high price.",
    ], {"q24": "2:1", "t048": 1}),
    ("bee15", "Using smoke", [
        "Beekeepers puff cool smoke into a hive before opening it.",
        "Smoke masks the alarm pheromone that guard bees release and prompts many bees to fill up on honey, which makes them calmer.",
        "Too much smoke, however, drives bees out and disrupts the colony, so a few gentle puffs are enough.",
        "Fuel such as dry grass, pine needles or burlap works well.",
    ], {"q24": 1, "q25": 0}),
    ("bee16", "Why colonies swarm", [
        "Swarming is how honeybee colonies reproduce.",
        "When a colony becomes crowded in spring, the workers raise new queens, and the old queen leaves with about half of the workers to find a new home.",
        "Congestion in the brood nest, an older queen and a strong flow of nectar all make swarming more likely.",
        "The colony left behind is taken over by one of the new queens.",
    ], {"q25": "3:0,1,2,3", "t049": 3, "t045": 1}),
    ("bee17", "Scout bees and decision making", [
        "A swarm first gathers in a cluster on a branch near the old hive.",
        "Scout bees search for cavities and report promising sites by dancing on the surface of the cluster.",
        "Over hours or days, support builds for the best site, and once enough scouts agree, the swarm flies there together.",
        "This process is a famous example of collective decision making.",
    ], {"q25": "2:0", "t047": 2, "t049": 1}),
    ("bee18", "Preventing swarms", [
        "Beekeepers try to prevent swarms because a swarm takes much of the honey crop with it.",
        "Giving the colony more space before it gets crowded helps, as does removing queen cells during weekly inspections in spring.",
        "An artificial swarm splits the colony in two deliberately, satisfying the urge to swarm while keeping both halves.",
    ], {"q25": "2:1,2", "t049": 2}),
    ("bee19", "Catching a swarm", [
        "A swarm hanging from a branch is usually calm, because the bees are full of honey and have no brood or stores to defend.",
        "A beekeeper can shake it into a box and then tip it into an empty hive.",
        "If the queen is inside, the rest of the bees follow, fanning their wings to spread her scent.",
    ], {"q25": 1, "t049": 0}),
    ("bee20", "The queen", [
        "Each colony normally has a single queen, the only female that lays eggs.",
        "In peak season she can lay over fifteen hundred eggs a day.",
        "Her pheromones hold the colony together and stop the workers from raising new queens.",
        "She mates only during a few flights early in life and stores the sperm for years.",
    ], {"t045": 3, "q25": 1, "q23": 0}),
    ("bee21", "Raising a new queen", [
        "Any fertilised egg can become a queen or a worker; the difference lies in how the larva is fed.",
        "Queen larvae are fed royal jelly throughout their development in large peanut-shaped cells.",
        "Workers raise new queens when the old one dies, fails, or before the colony swarms.",
        "The first queen to emerge usually kills her rivals still in their cells.",
    ], {"t045": 3, "q25": 1, "q22": 0}),
    ("bee22", "Workers and drones", [
        "Worker bees are sterile females whose jobs change with age, from cleaning cells and feeding larvae to building comb, guarding and finally foraging.",
        "Drones are males whose only role is to mate with queens from other colonies.",
        "In autumn the workers drive the drones out of the hive to save food.",
    ], {"t045": 1, "q22": 1}),
    ("bee23", "Winter cluster", [
        "Honeybees do not hibernate.",
        "In cold weather they form a tight cluster around the queen and shiver their flight muscles to produce heat, keeping the centre at over twenty degrees.",
        "The cluster moves slowly across the combs to reach its honey stores.",
        "A colony can starve with honey only a few centimetres away if it is too cold to move.",
    ], {"t046": 2}),
    ("bee24", "Preparing hives for winter", [
        "In autumn beekeepers check that each colony has enough stores, a laying queen and a low mite count.",
        "They fit mouse guards over the entrance, make sure the hive is ventilated to avoid condensation, and strap the roof down against storms.",
        "Weak colonies are often combined with stronger ones, since small clusters struggle to keep warm.",
    ], {"t046": 3, "q23": 1}),
    ("bee25", "The waggle dance", [
        "Forager bees tell their sisters where to find food with the waggle dance.",
        "On the vertical comb, the angle of the waggling run relative to straight up shows the direction of the food relative to the Sun.",
        "The length of the waggle run indicates the distance.",
        "Karl von Frisch won a Nobel Prize for decoding this language.",
        "A round dance without a waggling run tells other bees that food is close to the hive, without giving a direction.",
    ], {"t047": 3}),
    ("bee26", "Pheromones", [
        "Much of the communication inside a hive happens through smell.",
        "Guard bees release an alarm pheromone that smells like bananas and calls others to defend the colony.",
        "Workers expose a scent gland to guide returning bees to the entrance, and the queen's pheromone tells the colony she is present.",
        "Researchers still find new pheromones and learn how they shape the division of labour.",
    ], {"t047": 2, "q24": 0}),
    ("bee27", "Beeswax", [
        "Worker bees produce wax from glands on the underside of their abdomen and shape it into hexagonal comb.",
        "After harvest, beekeepers melt cappings and old comb, filter the wax and pour it into blocks.",
        "Beeswax is used for candles, furniture polish, cosmetics, food wraps and the lost-wax casting of metal.",
        "Making one kilogram of wax costs a colony many kilograms of honey.",
    ], {"t048": 3, "q22": 0, "q24": 1}),
    ("bee28", "Bees as pollinators", [
        "Honeybees pollinate many crops, from almonds and apples to oilseed rape.",
        "In California, more than a million hives are trucked into the almond orchards each February.",
        "Wild bees such as bumblebees and solitary bees are also important and often more efficient on particular flowers.",
        "Tomatoes, for example, need buzz pollination that honeybees cannot perform.",
    ], {"q22": 0, "q32": 1}),
    ("bee29", "Honeybee stings", [
        "A worker honeybee's sting is barbed, so it stays in the skin of mammals and the bee dies after stinging.",
        "The sting should be scraped out quickly, since the venom sac keeps pumping.",
        "Most people get only local swelling, but a few have severe allergic reactions and need emergency treatment.",
    ], {"q24": 0, "q25": 0, "q23": 0}),
    ("bee30", "Starting with bees", [
        "New beekeepers usually begin with a nucleus colony, a small established colony with a laying queen on five frames.",
        "Joining a local beekeeping association gives access to training, mentors and shared equipment such as extractors.",
        "A veil, gloves, a hive tool and a smoker are the basic kit.",
        "Expect little or no honey in the first year.",
    ], {"q24": 1}),
    ("bee31", "Small hive beetle", [
        "The small hive beetle is another pest of honeybees, originally from Africa.",
        "Its larvae tunnel through comb, eat brood and pollen, and make the honey ferment and run out of the cells.",
        "Strong colonies keep beetles in check, and beekeepers use oil traps between frames.",
        "Stored honey supers must be extracted quickly in areas where the beetle is present.",
    ], {"q23": 0, "t044": 0}),
    ("bee32", "Mead", [
        "Mead is an alcoholic drink made by fermenting honey with water and yeast.",
        "It is one of the oldest fermented drinks and was popular across medieval Europe.",
        "Fruit, spices or hops are often added.",
        "A dry mead can take months or even years to mature, much like wine.",
        "Its flavour depends strongly on the honey used, from light clover to dark buckwheat.",
    ], {"q22": 0, "t048": 0}),
]
