"""Volcanoes and geology: eruption causes, pyroclastic flows, eruption forecasting."""

TOPIC = "volcanoes"

QUERIES = [
    ("q12", "what causes a volcano to erupt"),
    ("q13", "pyroclastic flow dangers"),
    ("q14", "how do scientists predict volcanic eruptions"),
]

TRAIN = [
    ("t022", "paraphrase", "why do volcanoes erupt"),
    ("t023", "paraphrase", "monitoring and forecasting volcanic eruptions"),
    ("t024", "related", "shield volcano versus stratovolcano"),
    ("t025", "related", "volcanic ash hazards for aircraft"),
    ("t026", "unlike", "how do geysers work"),
    ("t027", "unlike", "why do earthquakes happen along fault lines"),
    ("t028", "unlike", "how diamonds reach the surface of the earth"),
]

DOCS = [
    ("vol01", "Why volcanoes erupt", [
        "A volcano erupts when molten rock, called magma, forces its way up from deep underground to the surface.",
        "Magma is less dense than the solid rock around it, so it rises buoyantly and collects in chambers a few kilometres down.",
        "As it rises, the pressure falls and dissolved gases such as water vapour and carbon dioxide come out of solution, like bubbles in an opened soda bottle.",
        "When the gas pressure exceeds the strength of the overlying rock, the magma bursts out.",
    ], {"q12": "3:0,1,2,3", "t022": 3}),
    ("vol02", "Where magma comes from", [
        "Most of the mantle is solid, so magma forms only in special places.",
        "At mid-ocean ridges the mantle rises and melts as pressure drops, and at subduction zones water released from the sinking plate lowers the melting point of the rock above it.",
        "Hot spots such as the one beneath Hawaii are fed by plumes of unusually hot mantle.",
        "These three settings explain where nearly all of the world's volcanoes are found.",
    ], {"q12": "2:1,2", "t022": 2, "t027": 1}),
    ("vol03", "Explosive or effusive", [
        "The style of an eruption depends mostly on how sticky the magma is and how much gas it holds.",
        "Runny basalt lets gas escape easily, so it tends to pour out as lava flows.",
        "Thick, silica-rich magma traps gas until the pressure is released all at once in a violent explosion.",
        "Mount St Helens in 1980 and Pinatubo in 1991 were eruptions of this explosive kind.",
    ], {"q12": "3:0,1,2", "t022": 3, "t024": 1, "q13": 0}),
    ("vol04", "Triggers of eruptions", [
        "A magma chamber can sit quietly for centuries before it erupts.",
        "Fresh magma injected from below can heat and pressurise the chamber and tip it into eruption.",
        "Other triggers include earthquakes that crack the rock above, heavy rainfall that seeps into hot rock and flashes to steam, and landslides that suddenly remove weight from the top of the volcano.",
    ], {"q12": "3:1,2", "t022": 3, "q14": 1}),
    ("vol05", "Shield volcanoes", [
        "Shield volcanoes are broad, gently sloping mountains built from thousands of runny lava flows.",
        "Mauna Loa in Hawaii is the largest example, rising more than nine kilometres from the sea floor.",
        "Their eruptions are usually gentle, with fountains and rivers of lava rather than explosions.",
        "The name comes from their resemblance to a warrior's shield lying on the ground.",
    ], {"t024": 3, "q12": 0}),
    ("vol06", "Stratovolcanoes", [
        "Stratovolcanoes are the steep, cone-shaped mountains most people picture when they think of a volcano.",
        "They are built from alternating layers of lava, ash and rock fragments.",
        "Their magma is viscous and gas-rich, so they are prone to explosive eruptions and pyroclastic flows.",
        "Mount Fuji, Vesuvius and Mount Rainier are all stratovolcanoes.",
    ], {"t024": 3, "q13": 1, "q12": 1}),
    ("vol07", "What a pyroclastic flow is", [
        "A pyroclastic flow is a fast-moving avalanche of hot gas, ash and rock fragments that races down the side of a volcano.",
        "It can travel at more than one hundred kilometres per hour and reach temperatures of several hundred degrees Celsius.",
        "Nothing in its path survives; people caught in one are killed almost instantly by heat and suffocation.",
        "Because flows move faster than anyone can run or drive, evacuation before the eruption is the only protection.",
        "The hot gas acts as a cushion, so flows can cross valleys and even water.",
        "Survivors have usually been people who sheltered in strong buildings at the very edge of a flow.",
    ], {"q13": "3:0,1,2,3,4,5"}),
    ("vol08", "Pompeii and Herculaneum", [
        "In the year 79 Vesuvius buried the Roman towns of Pompeii and Herculaneum.",
        "Many residents of Pompeii died not from the falling pumice but from pyroclastic surges that swept through the town on the second day.",
        "At Herculaneum the hot flows preserved wooden furniture and even food as charcoal.",
        "Plaster casts of the victims show how suddenly the surges struck.",
    ], {"q13": "3:1,2,3", "q21": 0}),
    ("vol09", "Mont Pelée 1902", [
        "On the morning of 8 May 1902 a pyroclastic flow from Mont Pelée destroyed the town of Saint-Pierre on the island of Martinique.",
        "Around twenty eight thousand people died within minutes.",
        "One of the very few survivors was a prisoner protected by the thick walls of his cell.",
        "The disaster led scientists to recognise these glowing clouds as a distinct and deadly volcanic hazard.",
    ], {"q13": "3:0,1,3"}),
    ("vol10", "Lahars", [
        "Lahars are mudflows of volcanic debris mixed with water from rain, melted snow or a crater lake.",
        "They flow down river valleys like wet concrete and can travel far beyond the reach of pyroclastic flows.",
        "In 1985 a lahar from Nevado del Ruiz buried the Colombian town of Armero and killed more than twenty thousand people.",
        "Warning systems now listen for the ground vibrations that lahars make.",
    ], {"q13": 1, "q14": 1}),
    ("vol11", "Surges and blasts", [
        "Pyroclastic surges are more dilute and turbulent than pyroclastic flows and can ride over ridges and even water.",
        "A lateral blast, like the one at Mount St Helens, happens when the side of a volcano collapses and suddenly releases pressurised magma sideways.",
        "Both hazards can flatten forests many kilometres away.",
    ], {"q13": "2:0,2", "q12": 1}),
    ("vol12", "Monitoring earthquakes", [
        "Rising magma breaks rock as it forces its way upward, producing swarms of small earthquakes.",
        "A network of seismometers around a volcano records these quakes and shows how deep they are and whether they are getting shallower.",
        "Long, low-frequency tremor often means fluid is moving through cracks, a common sign that an eruption may be approaching.",
    ], {"q14": "3:0,1,2", "t023": 3, "t027": 0}),
    ("vol13", "Ground deformation", [
        "As magma accumulates beneath a volcano, the ground above it swells by centimetres or even metres.",
        "Scientists measure this with GPS stations, tiltmeters and satellite radar, which can map changes across a whole mountain.",
        "Steady inflation followed by sudden changes is one of the clearest warnings of an eruption.",
        "Before the 1980 eruption the north flank of Mount St Helens bulged outward by over a metre a day.",
    ], {"q14": "3:0,1,2,3", "t023": 3}),
    ("vol14", "Volcanic gases", [
        "The amount and mix of gas coming out of a volcano changes as fresh magma rises.",
        "An increase in sulphur dioxide relative to carbon dioxide can mean magma is nearing the surface.",
        "Gas is measured with instruments on the ground, from aircraft and from satellites.",
        "Carbon dioxide can also collect in low places around a volcano and suffocate people and animals.",
    ], {"q14": "3:0,1,2", "t023": 2}),
    ("vol15", "Limits of prediction", [
        "Volcanologists can often say that an eruption is becoming more likely, but rarely exactly when it will happen.",
        "Some volcanoes show unrest for years without erupting, while others erupt after only hours of warning.",
        "Forecasts are therefore given as probabilities and alert levels rather than dates.",
        "The success at Pinatubo in 1991, where tens of thousands were evacuated in time, shows how much a good forecast can save.",
    ], {"q14": "3:0,1,2,3", "t023": 3}),
    ("vol16", "Machine learning for volcano monitoring", [
        "Volcano observatories now use machine learning to sort the thousands of seismic signals recorded each day.",
        "Classifiers trained on labelled events can tell rockfalls, tremor and volcano-tectonic quakes apart far faster than a human analyst.",
        "Researchers also test models that look for patterns preceding past eruptions, though reliable automatic prediction remains out of reach.",
    ], {"q14": "2:0,2", "q26": 0, "t023": 2}),
    ("vol17", "Volcanic ash", [
        "Volcanic ash is not soft like the ash from a fire; it consists of tiny, sharp fragments of rock and glass.",
        "It can collapse roofs when wet, damage lungs, and contaminate water supplies.",
        "Ash clouds also drift for thousands of kilometres and can be seen on satellite images.",
        "Cleaning it up after a large eruption can take a town months of work.",
    ], {"t025": 2, "q13": 0}),
    ("vol18", "Ash and aviation", [
        "When a jet flies through volcanic ash, the glassy particles melt in the hot engines and stick to the turbine blades.",
        "In 1982 a British Airways jumbo jet lost all four engines over Indonesia and only restarted them after gliding out of the cloud.",
        "Since then, volcanic ash advisory centres track ash clouds and close airspace when needed, as happened across Europe in 2010.",
    ], {"t025": 3}),
    ("vol19", "Geysers", [
        "A geyser forms where groundwater seeps into a narrow underground plumbing system heated by hot rock.",
        "The water deep down is under pressure and gets hotter than its normal boiling point.",
        "When some of it flashes to steam, it pushes out the water above, the pressure drops, and the whole column boils over in an eruption of hot water.",
        "Old Faithful in Yellowstone erupts every hour or two.",
    ], {"t026": 3, "q12": 0}),
    ("vol20", "Hot springs and fumaroles", [
        "Hot springs, mud pots and fumaroles are all signs of heat close to the surface.",
        "Fumaroles release steam and volcanic gases through vents in the ground, often coating the rocks with yellow sulphur crystals.",
        "Iceland uses this geothermal heat to warm most of its homes and to generate electricity.",
        "Visitors are warned to stay on marked paths, since the crust around such features can be thin.",
    ], {"t026": 1, "q14": 0}),
    ("vol21", "Earthquakes at faults", [
        "Earthquakes happen when rocks on either side of a fault suddenly slip past each other.",
        "The plates of the Earth's crust move steadily, but friction locks the fault until enough stress builds up to overcome it.",
        "The stored energy is released as seismic waves that shake the ground.",
        "The San Andreas fault in California is a famous example where two plates slide sideways.",
        "Most earthquakes are too small to feel, but a few each year cause serious damage, especially where buildings are not designed to withstand shaking.",
    ], {"t027": 3, "q12": 0}),
    ("vol22", "Measuring earthquakes", [
        "The size of an earthquake is given by its moment magnitude, which is based on the area of the fault that slipped and how far it moved.",
        "Each step up in magnitude means about thirty two times more energy released.",
        "Intensity scales, in contrast, describe how strongly the shaking was felt at a particular place.",
    ], {"t027": 2}),
    ("vol23", "Kimberlite pipes", [
        "Diamonds form more than one hundred and fifty kilometres below the surface, where pressure and heat are immense.",
        "They reach us through rare, extremely fast volcanic eruptions of a magma called kimberlite.",
        "The eruptions punch narrow, carrot-shaped pipes through the crust, carrying diamonds up before they can turn into graphite.",
        "No kimberlite eruption has occurred in recorded history.",
    ], {"t028": 3, "q12": 0}),
    ("vol24", "Supervolcanoes", [
        "A supervolcano is one capable of an eruption that ejects more than a thousand cubic kilometres of material.",
        "Instead of building a mountain, such eruptions leave a huge collapsed crater called a caldera.",
        "Yellowstone has had three giant eruptions in the last two million years, but scientists see no sign that another is imminent.",
    ], {"q12": 1, "q14": 0, "t026": 0}),
    ("vol25", "Volcanic soils", [
        "Weathered volcanic ash produces some of the most fertile soils in the world.",
        "These soils are rich in minerals, hold water well and drain freely, which is why farms crowd the slopes of active volcanoes despite the danger.",
        "Coffee from the highlands of Guatemala, Java and Hawaii is grown on volcanic soil.",
    ], {"t024": 0, "q16": 0}),
    ("vol26", "Climate effects of eruptions", [
        "Large explosive eruptions inject sulphur dioxide into the stratosphere, where it forms tiny droplets that reflect sunlight.",
        "After Pinatubo erupted in 1991, global temperatures fell by about half a degree for more than a year.",
        "The 1815 eruption of Tambora caused the year without a summer in Europe and North America, with failed harvests and famine.",
    ], {"q12": 0, "t025": 1}),
    ("vol27", "Underwater volcanoes", [
        "Most volcanic activity on Earth happens unseen on the ocean floor along mid-ocean ridges.",
        "Lava erupting into cold water forms rounded shapes called pillow lava.",
        "Shallow submarine eruptions can be violent, as when the Hunga Tonga volcano exploded in 2022 and sent pressure waves around the planet.",
        "Many seamounts that rise from the sea floor are extinct volcanoes of this kind.",
    ], {"q12": 1, "q13": 0}),
    ("vol28", "Lava types", [
        "Hawaiian has given geology two words for lava flows.",
        "Pahoehoe has a smooth, ropy surface and forms from hot, fluid lava.",
        "Aa is rough and jagged, full of broken clinker, and forms as lava cools and thickens while moving.",
        "Walking on aa is slow and painful, which is said to be the origin of its name.",
    ], {"t024": 1, "q13": 0}),
    ("vol29", "Living near volcanoes", [
        "Around eight hundred million people live within one hundred kilometres of an active volcano.",
        "Hazard maps show which areas are at risk from lava, pyroclastic flows, lahars and ash, and they guide where towns and roads are built.",
        "Regular evacuation drills in places such as Naples and Japan help people know where to go when alert levels rise.",
    ], {"q13": 1, "q14": 1}),
    ("vol30", "Volcanic lightning", [
        "Ash plumes often crackle with lightning.",
        "Particles of ash and ice collide inside the rising column and become electrically charged, much as in a thunderstorm.",
        "Detecting this lightning from afar has become one more way to spot explosive eruptions in remote places, even at night or under clouds.",
        "Photographers prize the rare images of bolts flashing through a glowing plume.",
    ], {"q14": 1, "t025": 1}),
    ("vol31", "Iceland between the plates", [
        "Iceland sits on the Mid-Atlantic Ridge, where the North American and Eurasian plates pull apart by about two centimetres a year.",
        "A hot spot beneath the island adds extra magma, which is why it has so many volcanoes.",
        "Fissure eruptions there can open cracks kilometres long that pour out curtains of lava.",
    ], {"q12": "2:0,1", "t022": 2, "t027": 0}),
    ("vol32", "Magma chambers imaged", [
        "Geophysicists map magma beneath volcanoes by how seismic waves slow down when they pass through partly molten rock.",
        "These images suggest that most magma is stored as a crystal-rich mush rather than a large lake of liquid.",
        "An eruption may require that mush to be reheated and remobilised first.",
    ], {"q12": "2:2", "q14": 1}),
]
