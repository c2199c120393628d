"""Medieval history: castle defence, the Black Death, peasant life (plus feudalism, sieges, monasteries)."""

TOPIC = "medieval history"

QUERIES = [
    ("q19", "how were medieval castles defended"),
    ("q20", "black death spread in medieval europe"),
    ("q21", "what was daily life like for a medieval peasant"),
]

TRAIN = [
    ("t036", "paraphrase", "castle defences in the middle ages"),
    ("t037", "paraphrase", "how the plague spread across europe in 1348"),
    ("t038", "related", "the feudal system of lords and vassals"),
    ("t039", "related", "how did a trebuchet work in sieges"),
    ("t040", "unlike", "monks copying manuscripts in monasteries"),
    ("t041", "unlike", "what did the magna carta establish"),
    ("t042", "unlike", "how a boy trained to become a knight"),
]

DOCS = [
    ("med01", "Walls, towers and moats", [
        "Medieval castles were designed to let a small garrison hold off a much larger army.",
        "Thick stone curtain walls were topped with battlements, from which archers could shoot through gaps while sheltering behind the solid parts.",
        "Towers projecting from the walls let defenders fire along the face of the wall at anyone trying to climb it.",
        "A moat, dry or filled with water, kept siege towers and miners away from the foundations.",
    ], {"q19": "3:0,1,2,3", "t036": 3, "q21": 0}),
    ("med02", "The gatehouse", [
        "The gate was the weakest point of any castle, so it became the most heavily fortified.",
        "A typical gatehouse had a drawbridge, one or more iron-clad portcullises and a long passage overlooked by murder holes.",
        "Attackers trapped between two portcullises could be showered with arrows, stones or boiling water from above.",
        "Some gatehouses were so strong that they served as the lord's residence.",
    ], {"q19": "3:0,1,2", "t036": 3}),
    ("med03", "Concentric castles", [
        "In the thirteenth century builders began to surround castles with two rings of walls, one inside the other.",
        "The inner wall was taller, so defenders on it could shoot over the heads of those on the outer wall.",
        "Attackers who broke through the first wall found themselves trapped in a narrow killing ground.",
        "Beaumaris and Harlech in Wales are famous examples built for Edward I.",
    ], {"q19": "3:0,1,2", "t036": 3}),
    ("med04", "Holding out under siege", [
        "Many sieges were won not by assault but by starvation.",
        "A well prepared castle stored grain, salted meat and firewood for months and had its own well inside the walls.",
        "Defenders also sallied out at night to burn siege engines and then retreated behind the gates.",
        "Disease in the attacking camp often ended a siege before the castle ran out of food.",
    ], {"q19": "3:1,2", "t036": 2, "t039": 1}),
    ("med05", "Motte and bailey", [
        "The earliest Norman castles in England were motte and bailey castles.",
        "A wooden tower stood on a tall earth mound, the motte, above a fenced courtyard, the bailey, where people and animals lived.",
        "They could be built in a few weeks with local labour, which helped the Normans control England after 1066.",
        "Wood burns, however, so most were later rebuilt in stone.",
    ], {"q19": "2:1,3", "t036": 1}),
    ("med06", "Arrow slits and machicolations", [
        "Narrow arrow slits let archers shoot out while offering almost no target to enemies outside.",
        "The slits were splayed on the inside so an archer could aim across a wide angle.",
        "Later castles added machicolations, stone galleries that jutted out from the top of the walls with openings in the floor.",
        "Through these openings defenders dropped stones on anyone at the base of the wall.",
    ], {"q19": "3:0,1,2,3", "t036": 3}),
    ("med07", "The trebuchet", [
        "The counterweight trebuchet was the most powerful siege engine of the Middle Ages.",
        "A heavy box of stones on the short arm of a long beam swung down and flung a projectile from a sling on the long arm.",
        "Large trebuchets could throw stones of over one hundred kilograms far enough to batter castle walls from beyond bowshot.",
        "Besiegers sometimes hurled dead animals over the walls to spread disease.",
    ], {"t039": 3, "q19": 1}),
    ("med08", "Mining and siege towers", [
        "Attackers could bring down a wall by digging a tunnel beneath it, propping it with timber, and then burning the props.",
        "Defenders dug countermines to break into the tunnels and fight underground.",
        "Tall wooden siege towers let soldiers reach the top of walls, but a moat or steep slope kept them away.",
    ], {"t039": 2, "q19": "2:1,2"}),
    ("med09", "Arrival of the Black Death", [
        "The Black Death reached Europe in 1347, when Genoese ships from the Black Sea landed at Sicily carrying sick sailors.",
        "Within a year it had spread along trade routes to Italy, France, Spain and England.",
        "By 1351 it had killed somewhere between a third and a half of the population of Europe.",
        "The disease was plague, caused by the bacterium Yersinia pestis.",
        "Contemporary writers described the speed of death with horror, and in some towns there were too few living to bury the dead.",
        "The plague returned in waves for centuries, though never again with quite the same force.",
    ], {"q20": "3:0,1,2,3", "t037": 3}),
    ("med10", "Fleas, rats and people", [
        "Plague is carried by fleas that live on rats and other rodents.",
        "When infected rats die, their fleas jump to people and pass on the bacteria through their bites.",
        "Some historians now argue that human fleas and lice spread the Black Death faster than rats alone could explain.",
        "In its pneumonic form, plague also passed directly from person to person through coughing.",
    ], {"q20": "3:0,1,2,3", "t037": 3}),
    ("med11", "Trade routes and the spread of plague", [
        "Medieval Europe was tied together by busy sea and land trade routes, and the plague travelled along them.",
        "Ports were usually hit first, and the disease then moved inland along rivers and roads at a few kilometres a day.",
        "Some regions, such as parts of Poland, seem to have been less affected, perhaps because they were more isolated.",
    ], {"q20": "3:0,1,2", "t037": 3}),
    ("med12", "Medieval explanations", [
        "People at the time did not know about bacteria.",
        "Physicians blamed corrupt air, or miasma, and a bad conjunction of the planets, while many believed the plague was punishment from God.",
        "Groups of flagellants whipped themselves in public to seek forgiveness.",
        "In many towns Jews were falsely accused of poisoning wells and murdered.",
    ], {"q20": "1", "t037": 1}),
    ("med13", "Quarantine", [
        "The word quarantine comes from the Venetian term for forty days, the period ships had to wait before landing during later plague outbreaks.",
        "Ragusa, today's Dubrovnik, introduced an isolation rule in 1377.",
        "Such measures slowed the spread of plague in later centuries, although nobody yet understood how it was transmitted.",
    ], {"q20": "2:0,2", "t037": 2}),
    ("med14", "After the plague", [
        "The huge death toll left fields without workers.",
        "Surviving peasants could demand higher wages and better terms, and many left their manors for new work.",
        "Lords tried to freeze wages by law, which fed anger that burst out in the English Peasants' Revolt of 1381.",
        "Historians see the plague as one reason serfdom declined in western Europe.",
    ], {"q20": 1, "q21": 1, "t038": 1}),
    ("med15", "A peasant's day", [
        "Most medieval people were peasants who lived in small villages and worked the land from dawn to dusk.",
        "Men ploughed, sowed and harvested, while women also worked in the fields and kept the house, the garden, the poultry and the dairy.",
        "Meals were simple: dark bread, pottage of vegetables and grains, cheese, and ale, with meat only on special days.",
        "Children helped with work from an early age.",
    ], {"q21": "3:0,1,2,3", "q20": 0}),
    ("med16", "Peasant houses", [
        "A peasant family usually lived in a single-roomed house of timber and wattle and daub with a thatched roof.",
        "A fire in the middle of the floor gave heat and was used for cooking, and smoke escaped through the thatch.",
        "In winter the animals were often kept at one end of the house, which added warmth.",
        "Furniture was limited to a table, benches, a chest and straw-filled mattresses.",
    ], {"q21": "3:0,1,2,3"}),
    ("med17", "Serfs and obligations", [
        "Many peasants were serfs bound to the land of their lord.",
        "They had to work on the lord's fields for several days each week, pay rents in produce and ask permission to marry or leave the manor.",
        "In return they farmed their own strips of land and received protection.",
        "Free peasants paid rent but owed less labour.",
    ], {"q21": "3:0,1,2", "t038": 2}),
    ("med18", "The farming year", [
        "Villages commonly farmed with a three-field system.",
        "One field was sown with wheat or rye in autumn, another with barley, oats or peas in spring, and the third left fallow to recover.",
        "The calendar of work, from ploughing to haymaking and harvest, set the rhythm of village life, broken by feast days and fairs.",
    ], {"q21": "2:2", "t040": 0}),
    ("med19", "Feudalism", [
        "Feudalism describes the web of obligations between lords and vassals in medieval Europe.",
        "A king granted land, called a fief, to nobles in return for military service and loyalty.",
        "These nobles in turn granted land to knights, who swore oaths of homage to them.",
        "At the bottom, peasants worked the land that supported the whole system.",
    ], {"t038": 3, "q21": 1}),
    ("med20", "Manors", [
        "The manor was the basic economic unit of rural life.",
        "It consisted of the lord's house, his own farmland, the strips held by peasants, common pasture, woodland and often a mill and a church.",
        "The lord's court settled disputes among villagers and collected fines.",
        "Peasants had to grind their grain at the lord's mill and pay him for it.",
    ], {"t038": 2, "q21": "2:1,2,3", "q19": 0}),
    ("med21", "Monastic scriptoria", [
        "Before printing, books were copied by hand, often by monks working in a room called the scriptorium.",
        "They wrote on parchment made from calf or sheep skin, using quill pens and inks made from oak galls.",
        "A single Bible could take years to copy.",
        "Monasteries preserved many classical Latin texts that would otherwise have been lost.",
    ], {"t040": 3, "q20": 0}),
    ("med22", "Illuminated manuscripts", [
        "The finest manuscripts were decorated with painted initials, borders and miniature pictures, often with gold leaf.",
        "Pigments came from minerals, plants and insects; ultramarine blue from ground lapis lazuli was more precious than gold.",
        "The Book of Kells, made around the year 800, is one of the most celebrated examples.",
        "Monks prepared the parchment with great care, scraping and smoothing it before ruling lines for the text.",
    ], {"t040": 2}),
    ("med23", "Monastic beekeeping", [
        "Medieval monasteries often kept bees.",
        "Beeswax was needed in large amounts for church candles, and honey was the main sweetener before sugar became common.",
        "Bees were kept in woven straw skeps, and in autumn the colony was often killed with sulphur smoke to take the honey and wax.",
        "Some monastic rules set out how the hives should be tended.",
    ], {"q24": 1, "t040": 1, "t048": 2, "q22": 0}),
    ("med24", "Magna Carta", [
        "In 1215 rebellious barons forced King John of England to seal the Magna Carta at Runnymede.",
        "The charter limited the power of the king, protected the rights of the church and promised that no free man could be imprisoned except by lawful judgement.",
        "It was annulled within months but reissued several times and later became a symbol of the rule of law.",
    ], {"t041": 3, "t038": 0, "q21": 0}),
    ("med25", "Training a knight", [
        "A boy from a noble family usually began training for knighthood at about seven, serving as a page in another lord's household.",
        "At around fourteen he became a squire, caring for a knight's horse and armour and learning to fight with sword and lance.",
        "If he proved himself, he was dubbed a knight around the age of twenty one.",
    ], {"t042": 3, "t038": 1, "q19": 0}),
    ("med26", "Chivalry", [
        "Chivalry was the code of conduct expected of knights.",
        "It asked for courage in battle, loyalty to one's lord, protection of the church and the weak, and courtesy toward ladies.",
        "Romances about King Arthur spread these ideals, though real knights often fell far short of them.",
        "Tournaments let knights show off their skill in peacetime.",
    ], {"t042": 2, "q19": 0}),
    ("med27", "Medieval bread", [
        "Bread was the basis of the medieval diet.",
        "Wealthy households ate white wheat bread, while peasants ate coarse loaves of rye, barley or mixed grains.",
        "Many villagers had to bake in the lord's communal oven and pay a fee for it.",
        "Old bread was used as a plate called a trencher and afterwards given to the poor or to dogs.",
    ], {"q21": "2:1,2", "q05": 0}),
    ("med28", "Crusader castles", [
        "Crusaders in the Holy Land built some of the strongest castles of the Middle Ages.",
        "Krak des Chevaliers in Syria had massive sloping walls, many towers and storage for a garrison of two thousand.",
        "It withstood many sieges before falling in 1271, when the besiegers tricked the defenders with a forged letter.",
    ], {"q19": "2:1", "t039": 0}),
    ("med29", "Medieval medicine", [
        "Medieval medicine was based on the theory of four humours: blood, phlegm, yellow bile and black bile.",
        "Illness was thought to come from an imbalance among them, so doctors prescribed bleeding, purging and special diets.",
        "Herbal remedies grown in monastery gardens were widely used, and some did help.",
        "Surgeons and barbers handled wounds and amputations.",
    ], {"q20": 0, "t040": 0}),
    ("med30", "Peasant clothing and health", [
        "Peasants wore simple woollen tunics, hose and hooded cloaks, usually undyed or coloured with cheap plant dyes.",
        "Hard labour, poor harvests and disease meant that life expectancy at birth was around thirty years, mostly because so many infants died.",
        "Those who survived childhood often lived into their fifties or sixties.",
    ], {"q21": "2:0,1"}),
    ("med31", "Village church and festivals", [
        "The parish church was the centre of village life.",
        "Peasants paid a tenth of their produce as a tithe, attended mass and marked births, marriages and deaths there.",
        "Holy days gave rest from work, and festivals such as May Day and harvest home were celebrated with food, dancing and games.",
    ], {"q21": "2:0,1,2"}),
    ("med32", "Medieval sailing ships", [
        "The cog was the main cargo ship of northern Europe in the later Middle Ages.",
        "It had a flat bottom, high sides and a single square sail, which made it slow but capable of carrying large loads.",
        "Such ships carried grain, wool and wine between the ports of the Hanseatic League, and also rats and their fleas.",
    ], {"q20": 1, "q29": 0}),
]
