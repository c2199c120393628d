"""Gardening and tomatoes: fruit set, leaf spot diseases, pruning suckers (plus watering, compost, seeds)."""

TOPIC = "gardening"

QUERIES = [
    ("q32", "tomato plants flowering but not setting fruit"),
    ("q33", "yellow leaves with brown spots on tomato plants"),
    ("q34", "should I prune tomato suckers"),
]

TRAIN = [
    ("t064", "paraphrase", "why do tomato flowers drop off without making fruit"),
    ("t065", "paraphrase", "removing side shoots from tomato plants"),
    ("t066", "related", "what causes blossom end rot on tomatoes"),
    ("t067", "related", "how often to water tomatoes in containers"),
    ("t068", "unlike", "composting kitchen scraps at home"),
    ("t069", "unlike", "saving tomato seeds for next year"),
    ("t070", "unlike", "how to grow basil from seed"),
]

DOCS = [
    ("tom01", "Why tomato flowers fail to set fruit", [
        "Tomato plants that flower well but produce little fruit are usually suffering from heat.",
        "When daytime temperatures stay above about thirty two degrees Celsius, or nights stay above twenty four, the pollen becomes sticky and sterile.",
        "The flowers then dry up and drop off, a problem gardeners call blossom drop.",
        "Fruit set usually resumes by itself once the weather cools.",
    ], {"q32": "3:0,1,2,3", "t064": 3}),
    ("tom02", "Pollinating tomatoes", [
        "Tomato flowers pollinate themselves, but the pollen must be shaken loose inside the flower.",
        "Outdoors, wind and bumblebees do this by vibrating the flowers, a process called buzz pollination.",
        "In a greenhouse or on a still balcony, gardeners can tap the flower trusses or touch them with an electric toothbrush around midday.",
        "Poor pollination also produces small, misshapen fruit.",
    ], {"q32": "3:0,1,2,3", "t064": 2}),
    ("tom03", "Too much nitrogen", [
        "A tomato plant given a lot of nitrogen fertiliser grows lush, dark green leaves but few flowers and fruits.",
        "Once plants start flowering, gardeners switch to a feed higher in potassium, often sold as tomato fertiliser.",
        "Fresh manure dug in just before planting can cause the same leafy growth.",
        "A soil test helps show what the bed really needs.",
    ], {"q32": "3:0,1", "t064": 1}),
    ("tom04", "Humidity and fruit set", [
        "Both very dry and very humid air interfere with tomato pollination.",
        "In dry air the pollen does not stick to the stigma, while in very humid air it clumps and will not shed.",
        "Greenhouse growers keep humidity moderate by ventilating on warm days and damping down paths when the air is too dry.",
    ], {"q32": "3:0,1,2", "t064": 3}),
    ("tom05", "Stress and flower drop", [
        "Tomatoes drop flowers when they are stressed.",
        "Irregular watering, a sudden cold night, transplant shock or heavy insect damage can all make a plant shed its blossoms to save energy.",
        "Plants carrying a large load of fruit may also drop new flowers until the first fruits ripen.",
        "Steady care and patience solve most cases.",
    ], {"q32": "3:0,1,2", "t064": 3}),
    ("tom06", "Early blight", [
        "Early blight is a fungal disease that starts on the lower, older leaves of tomato plants.",
        "It forms brown spots with dark concentric rings like a target, surrounded by a yellow halo, and the leaves soon turn yellow and fall.",
        "The fungus survives in soil and plant debris and splashes up with rain or watering.",
        "Removing affected leaves, mulching and watering at the base slow its spread.",
        "Fungicides based on copper can slow the disease in wet summers, but they work only as a protective layer and must be reapplied after rain.",
        "Burning or binning infected leaves, rather than composting them, keeps the spores out of next year's beds.",
    ], {"q33": "3:0,1,2,3,4,5"}),
    ("tom07", "Septoria leaf spot", [
        "Septoria leaf spot produces many small round spots with grey centres and dark brown edges on tomato leaves.",
        "Tiny black dots, the fruiting bodies of the fungus, can often be seen in the middle of each spot.",
        "Badly affected leaves turn yellow, wither and drop, starting from the bottom of the plant.",
        "Crop rotation and clearing debris in autumn reduce infection the next year.",
    ], {"q33": "3:0,1,2,3"}),
    ("tom08", "Late blight", [
        "Late blight is the disease that caused the Irish potato famine, and it attacks tomatoes too.",
        "It produces large, greasy-looking grey-green to brown patches on leaves and dark streaks on stems, often with white mould underneath in damp weather.",
        "Whole plants can collapse within days during warm, wet spells.",
        "Infected plants should be removed and not composted.",
    ], {"q33": "2:1,2"}),
    ("tom09", "Yellowing without spots", [
        "Lower leaves of tomatoes often turn yellow evenly without any spots as the plant ages.",
        "This is frequently a sign of nitrogen shortage, as the plant moves nitrogen from old leaves to new growth.",
        "Yellowing between the veins of older leaves points to a lack of magnesium, which a dilute Epsom salt solution can correct.",
        "Overwatering can also yellow leaves by starving the roots of air.",
    ], {"q33": "2:0,1,2", "q32": 0}),
    ("tom10", "Preventing leaf diseases", [
        "Most tomato leaf diseases spread in water and thrive when leaves stay wet.",
        "Space plants so air moves between them, water the soil rather than the foliage, and remove the lowest leaves once the plant is tall.",
        "A layer of straw mulch stops soil splashing onto the leaves.",
        "Resistant varieties are marked with letter codes on seed packets.",
    ], {"q33": "2:0,1,2", "q34": 1}),
    ("tom11", "Bacterial spot", [
        "Bacterial spot causes small, dark, water-soaked spots on tomato leaves that may merge into larger dead patches and leave leaves ragged and yellow.",
        "It also marks fruit with raised scabby spots.",
        "The bacteria are often carried on seed, so buying certified seed and avoiding overhead watering are the main defences.",
        "Copper sprays give only partial control.",
    ], {"q33": "2:0", "t069": 1}),
    ("tom12", "What tomato suckers are", [
        "Suckers are the side shoots that grow in the angle between a tomato plant's main stem and a leaf branch.",
        "Left alone, each sucker grows into another stem with its own flowers and fruit.",
        "Whether to remove them depends mainly on the type of tomato being grown.",
        "Gardeners argue about suckers more than almost any other tomato question.",
    ], {"q34": "3:0,1,2", "t065": 2}),
    ("tom13", "Pruning indeterminate tomatoes", [
        "Indeterminate or vining tomatoes keep growing all season and are usually trained up a single stake or string.",
        "Removing the suckers while they are small keeps these plants to one or two stems, improves air flow and directs energy into fewer, larger fruits.",
        "Snap suckers off by hand in the morning, when the stems are crisp.",
        "Unpruned vining tomatoes become a tangled jungle that is hard to support.",
    ], {"q34": "3:0,1,2,3", "t065": 3}),
    ("tom14", "Leave determinate tomatoes alone", [
        "Determinate or bush tomatoes grow to a fixed size and set most of their fruit at once.",
        "Their flowers form at the tips of the side shoots, so removing suckers cuts the harvest.",
        "Apart from taking off leaves that touch the ground, bush varieties are best left unpruned.",
        "Seed catalogues say which type each variety is.",
    ], {"q34": "3:0,1,2", "t065": 3}),
    ("tom15", "The case against pruning", [
        "Some experienced growers hardly prune at all.",
        "More leaves mean more sugar for the fruit and more shade against sunscald in hot climates.",
        "Unpruned plants give a larger total crop, although the fruits are smaller and ripen a little later.",
        "The best choice depends on climate, space and how much time the gardener has.",
    ], {"q34": "3:0,1,2,3", "t065": 2}),
    ("tom16", "Rooting suckers", [
        "Tomato suckers removed in early summer do not have to be thrown away.",
        "A sucker about fifteen centimetres long placed in water or moist compost will root within a week or two.",
        "The new plant is a clone of the parent and can give a late crop, which is useful in long growing seasons.",
    ], {"q34": "2:0", "t065": 1, "t069": 1}),
    ("tom17", "Topping plants in late summer", [
        "About a month before the first expected frost, many gardeners cut off the growing tip of each vining tomato.",
        "This stops new flowers forming and sends the plant's energy into ripening the fruit already on it.",
        "Any new flowers that appear later are also pinched out.",
        "Green fruit left at the end of the season can ripen indoors.",
    ], {"q34": 1, "q32": 0}),
    ("tom18", "Blossom end rot", [
        "Blossom end rot appears as a dark, sunken, leathery patch at the bottom of the fruit.",
        "It is caused by a shortage of calcium in the developing fruit, but the soil usually has plenty; the problem is irregular watering that stops calcium moving into the plant.",
        "Deep, regular watering and mulch prevent it far better than adding calcium.",
        "Affected fruit should be picked and discarded.",
    ], {"t066": 3, "q33": 0, "q32": 0}),
    ("tom19", "Cracked fruit", [
        "Tomatoes split when heavy rain or watering follows a dry spell and the fruit swells faster than its skin can stretch.",
        "Cracks let in moulds, so split fruit should be picked and used quickly.",
        "Some varieties resist cracking, and even watering helps.",
        "Cherry tomatoes are especially prone to it.",
        "Picking fruit just before heavy rain is forecast saves many of them.",
    ], {"t066": 1, "t067": 1}),
    ("tom20", "Watering tomatoes in pots", [
        "Tomatoes in containers dry out quickly and may need watering once or even twice a day in hot weather.",
        "Water until it runs out of the drainage holes, and check the compost with a finger before watering again.",
        "Large pots of at least twenty litres hold more water and make the job easier.",
        "Self-watering containers with a reservoir are a good choice for busy gardeners.",
    ], {"t067": 3, "q32": 0}),
    ("tom21", "Feeding container tomatoes", [
        "Compost in pots runs out of nutrients within a few weeks.",
        "Once the first fruits set, container tomatoes benefit from a liquid tomato feed every week.",
        "Too much fertiliser can scorch roots, so follow the dilution on the label.",
        "Rainwater is kinder to plants than hard tap water if it can be collected.",
    ], {"t067": 2, "q32": 1}),
    ("tom22", "Home composting", [
        "Composting turns kitchen and garden waste into a dark, crumbly soil improver.",
        "A good heap mixes green materials rich in nitrogen, such as vegetable scraps and grass clippings, with brown materials rich in carbon, such as dry leaves, straw and cardboard.",
        "Turning the heap adds air and speeds up decomposition.",
        "Meat, dairy and cooked food attract rats and are best left out.",
        "Finished compost is dark and smells of earth, and it can be spread on beds or mixed into potting soil.",
    ], {"t068": 3}),
    ("tom23", "Hot and cold composting", [
        "A large, well mixed heap can heat up to over sixty degrees Celsius in its centre, which kills many weed seeds and diseases.",
        "A cold heap that is simply added to over time works too, but it takes a year or more and does not kill seeds.",
        "Worm bins suit small gardens and balconies, turning scraps into rich castings.",
    ], {"t068": 3, "q33": 0}),
    ("tom24", "Saving tomato seeds", [
        "Seeds can be saved from open-pollinated and heirloom tomatoes, which come true from seed, but not reliably from hybrids.",
        "Scoop the seeds with their gel into a jar with a little water and leave them to ferment for a few days.",
        "Fermentation removes the gel coating and reduces seed-borne disease.",
        "Rinse, dry the seeds on a plate and store them somewhere cool and dry.",
    ], {"t069": 3}),
    ("tom25", "Starting tomatoes from seed", [
        "Tomato seeds are sown indoors six to eight weeks before the last frost.",
        "They germinate fastest at around twenty to twenty five degrees Celsius and need strong light once up, or they become tall and weak.",
        "Seedlings are moved into larger pots when they have their first true leaves and can be planted deeper than before, since tomatoes root along buried stems.",
    ], {"t069": 1, "t070": 1}),
    ("tom26", "Growing basil", [
        "Basil is a warm-weather herb that hates cold and is killed by frost.",
        "Sow seeds indoors on the surface of moist compost, barely covered, and keep them warm; they sprout within a week.",
        "Pinch out the tips of young plants above a pair of leaves to make them bushy, and remove flower buds to keep the leaves coming.",
        "Basil grown next to tomatoes is said to improve their flavour, though evidence is thin.",
    ], {"t070": 3, "q34": 0}),
    ("tom27", "Hardening off", [
        "Seedlings raised indoors must be hardened off before planting out.",
        "Over about a week they are set outside for longer each day, starting in shade, so their leaves toughen against sun and wind.",
        "Skipping this step can scorch or stunt young plants and delay flowering.",
        "A cold frame makes the process easier.",
    ], {"q32": 1, "t070": 1}),
    ("tom28", "Supporting tomatoes", [
        "Vining tomatoes need tall stakes, strings or cages from the start.",
        "Tie the main stem loosely to the support every thirty centimetres as it grows, using soft twine.",
        "Cages suit plants that are not pruned, since they support many stems at once.",
        "Keeping fruit off the soil reduces rot and disease.",
    ], {"q34": 1, "q33": 0}),
    ("tom29", "Ripening and picking", [
        "Tomatoes ripen best on the vine, but they can be picked when they first show colour and ripened indoors with little loss of flavour.",
        "Ripening is driven by ethylene gas, so placing green tomatoes with a banana speeds things up.",
        "Never keep ripe tomatoes in the fridge if you can avoid it, as cold dulls their flavour.",
    ], {"q32": 0}),
    ("tom30", "Crop rotation", [
        "Tomatoes, potatoes, peppers and aubergines belong to the same family and share many diseases.",
        "Growing them in a different bed each year, and not returning to the same spot for three or four years, lets soil-borne diseases die out.",
        "In a small garden, growing in fresh compost in containers is an alternative.",
    ], {"q33": 1, "t068": 0}),
    ("tom31", "Tomato hornworms", [
        "Tomato hornworms are large green caterpillars with a horn at the rear that can strip a plant of leaves in days.",
        "Black droppings on the leaves below are the best clue, since the caterpillars are well camouflaged.",
        "Picking them off by hand works well in small gardens.",
        "Tiny wasps that parasitise them leave white cocoons on their backs and should be left alone.",
    ], {"q33": 0, "q34": 0}),
    ("tom32", "Greenhouse tomatoes", [
        "Greenhouses extend the growing season and protect tomatoes from rain, which reduces blight.",
        "On sunny days the temperature inside can soar past the point at which flowers fail, so vents, doors and shade paint are essential.",
        "Plants are usually grown as single cordons up strings hung from the roof.",
        "Regular tapping of the trusses helps pollination.",
    ], {"q32": "3:1,3", "q34": "2:2", "q33": 1}),
]
