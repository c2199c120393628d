"""Baking: kneading and gluten, sourdough starters, chemical leaveners (plus cakes, chocolate, pastry)."""

TOPIC = "baking"

QUERIES = [
    ("q05", "why does bread dough need kneading"),
    ("q06", "sourdough starter feeding schedule"),
    ("q07", "can I substitute baking soda for baking powder"),
]

TRAIN = [
    ("t008", "paraphrase", "what does kneading do to bread dough"),
    ("t009", "paraphrase", "how often should a sourdough starter be fed"),
    ("t010", "related", "why did my cake sink in the middle"),
    ("t011", "related", "proofing bread dough in the fridge overnight"),
    ("t012", "unlike", "how to temper chocolate"),
    ("t013", "unlike", "laminated dough for croissants and puff pastry"),
    ("t014", "unlike", "adjusting recipes for baking at high altitude"),
]

DOCS = [
    ("bak01", "Kneading and gluten", [
        "Wheat flour contains two proteins, glutenin and gliadin, that bond into gluten when they meet water.",
        "Kneading stretches and folds the dough so that these proteins line up into long, elastic strands.",
        "The resulting network traps the carbon dioxide made by yeast, which lets the loaf rise and gives bread its chewy texture.",
        "Under-kneaded dough tears easily and bakes into a dense, crumbly loaf.",
    ], {"q05": "3:0,1,2,3", "t008": 3, "q07": 0}),
    ("bak02", "The windowpane test", [
        "Bakers check whether dough has been kneaded enough with the windowpane test.",
        "A small piece is stretched gently between the fingers until it is thin enough to let light through.",
        "If it stretches into a translucent sheet without tearing, the gluten is well developed.",
        "If it breaks at once, the dough needs a few more minutes of work.",
    ], {"q05": "2:0,2,3", "t008": 2}),
    ("bak03", "No-knead bread", [
        "Kneading is not the only way to build gluten.",
        "Given enough time, a wet dough develops a strong network on its own as enzymes and slow hydration do the work that hands would otherwise do.",
        "The popular no-knead method mixes flour, water, salt and a pinch of yeast and leaves the dough for twelve to eighteen hours.",
        "The long rest also adds flavour.",
    ], {"q05": "3:0,1", "t008": 2, "t011": 1}),
    ("bak04", "Overworked dough", [
        "It is hard to over-knead dough by hand, but a powerful stand mixer can do it in a few minutes.",
        "Over-kneaded dough turns slack and sticky because the gluten strands begin to break down.",
        "The bread then spreads instead of rising tall.",
        "Watching the dough rather than the clock is the safest approach when using a machine.",
    ], {"q05": "2:1,2", "t008": 1}),
    ("bak05", "Flour strength", [
        "Bread flour has more protein than cake flour, usually around twelve to fourteen percent.",
        "More protein means more gluten, so bread flour gives a chewier crumb and tolerates longer kneading.",
        "Cake flour is milled from soft wheat and gives tender, fine-textured cakes.",
        "All-purpose flour sits between the two and works reasonably well for both.",
    ], {"q05": 1, "q07": 0}),
    ("bak06", "Autolyse", [
        "Many bakers mix only flour and water and let them rest for twenty to sixty minutes before adding salt and yeast.",
        "This rest, called autolyse, lets the flour hydrate fully and starts gluten formation without any effort.",
        "Dough that has been through an autolyse needs noticeably less kneading and is easier to shape.",
    ], {"q05": "2:1,2", "t008": 2, "q06": 0}),
    ("bak07", "Kneading in a bread machine", [
        "A bread machine kneads, proofs and bakes in one pan.",
        "Its paddle works the dough for a fixed time, usually fifteen to twenty minutes, which is enough for most sandwich loaves.",
        "The result is convenient but the shape is always the same tall block, and the paddle often leaves a hole in the bottom of the loaf.",
    ], {"q05": 1}),
    ("bak08", "What a sourdough starter is", [
        "A sourdough starter is a living culture of wild yeasts and lactic acid bacteria kept in a mixture of flour and water.",
        "The yeasts make the gas that raises the bread, while the bacteria produce the acids that give sourdough its tang.",
        "A healthy starter smells pleasantly sour and doubles in size a few hours after it is fed.",
    ], {"q06": "1", "t009": 1}),
    ("bak09", "Feeding a starter at room temperature", [
        "A starter kept on the counter should be fed once or twice a day.",
        "At each feeding, discard most of it and mix the remainder with fresh flour and water, often in equal weights.",
        "Feeding every twelve hours keeps the culture active and prevents it from becoming too acidic.",
        "If a layer of grey liquid appears on top, the starter is hungry and should be fed sooner.",
        "Many bakers also mark the level of the jar with a rubber band after feeding, which makes it easy to see how much it has risen.",
        "A starter that reliably doubles within four to eight hours is ready to raise bread.",
    ], {"q06": "3:0,1,2,3,5", "t009": 3}),
    ("bak10", "Keeping a starter in the fridge", [
        "Bakers who make bread only on weekends can keep their starter in the refrigerator.",
        "The cold slows the microbes so much that a weekly feeding is enough.",
        "A day before baking, take it out and give it two feedings at room temperature so that it becomes lively again.",
        "A neglected starter can usually be revived after several weeks with a few regular feedings.",
    ], {"q06": "3:0,1,2,3", "t009": 3, "t011": 0}),
    ("bak11", "Starter ratios", [
        "The feeding ratio describes how much old starter is mixed with fresh flour and water.",
        "A ratio of one part starter to one part flour and one part water peaks within four to six hours in a warm kitchen.",
        "A ratio of one to five to five takes much longer to peak, which is handy for feeding in the evening and baking the next morning.",
        "Changing the ratio is a simple way to fit the schedule of the starter to your own.",
    ], {"q06": "3:0,1,2,3", "t009": 3}),
    ("bak12", "Creating a starter from scratch", [
        "A new starter can be made from nothing more than whole grain flour and water.",
        "For the first few days it bubbles wildly as many kinds of bacteria grow, then it often goes quiet.",
        "Daily feeding through this lull lets the acid-tolerant yeasts and lactobacilli take over, and the culture is usually stable after one to two weeks.",
    ], {"q06": "2:2", "t009": 2}),
    ("bak13", "Sourdough flavour", [
        "The flavour of sourdough depends on the balance between lactic and acetic acid.",
        "Warm, wet doughs favour milder lactic acid, while cool, stiff doughs produce more of the sharper acetic acid.",
        "Long cold fermentation of the shaped loaf also deepens the sour taste.",
        "Bakers who prefer a mild loaf keep the starter warm and use it right at its peak.",
    ], {"q06": 0, "t011": 2}),
    ("bak14", "Baking soda and baking powder", [
        "Baking soda is pure sodium bicarbonate, a base that releases carbon dioxide only when it meets an acid.",
        "Baking powder contains baking soda together with a dry acid and some starch, so it only needs moisture to start working.",
        "Because baking soda is about three to four times stronger, the two cannot be swapped one for one.",
        "Recipes that use baking soda usually contain an acidic ingredient such as buttermilk, yogurt or lemon juice.",
    ], {"q07": "3:0,1,2,3"}),
    ("bak15", "Substituting leaveners", [
        "If a recipe calls for baking powder and you only have baking soda, use about a quarter of the amount and add an acid.",
        "A common home substitute is one part baking soda mixed with two parts cream of tartar.",
        "Going the other way, about three teaspoons of baking powder can replace one teaspoon of baking soda, though the result may taste slightly bitter or salty.",
    ], {"q07": "3:0,1,2"}),
    ("bak16", "Double-acting powder", [
        "Most baking powder sold today is double acting.",
        "It releases some gas as soon as it is wet and a second burst when it is heated in the oven.",
        "This gives bakers a little time between mixing and baking without losing much rise.",
        "Single-acting powder must be baked right away, since it gives up all its gas at the mixing stage.",
    ], {"q07": "2:0,1", "q06": 0}),
    ("bak17", "Soapy taste", [
        "Too much baking soda leaves cakes and cookies with a soapy, metallic taste.",
        "This happens when there is not enough acid in the batter to neutralise the base.",
        "Browning also increases, because an alkaline batter speeds up the Maillard reaction.",
        "Some cookie recipes use this effect on purpose to get a darker colour and crisp edges.",
    ], {"q07": "2:0,1", "t010": 0}),
    ("bak18", "Testing old leaveners", [
        "Chemical leaveners lose strength over months, especially in a humid kitchen.",
        "To test baking powder, stir a teaspoon into hot water; it should fizz vigorously.",
        "To test baking soda, add a few drops of vinegar or lemon juice instead.",
        "A weak reaction means the tin should be replaced before your next cake comes out flat.",
    ], {"q07": 1, "t010": 1}),
    ("bak19", "Why cakes sink", [
        "A cake that sinks in the middle has usually lost the gas bubbles that hold it up before its structure had set.",
        "Opening the oven door too early, using too much leavening, or baking at too low a temperature are the usual causes.",
        "Underbaking also makes a cake collapse as it cools, since the centre is still wet.",
        "A skewer inserted in the middle should come out clean before the cake is taken out.",
        "Cakes made with too much sugar or fat can also fail to set properly, since both weaken the structure formed by flour and eggs.",
    ], {"t010": 3, "q07": 1}),
    ("bak20", "Creaming butter and sugar", [
        "Many cake recipes begin by beating soft butter with sugar for several minutes.",
        "The sharp sugar crystals cut tiny air pockets into the fat, and these pockets later expand in the oven.",
        "Properly creamed butter turns pale and fluffy.",
        "Cold butter or rushed creaming leads to heavy cakes that may sink.",
    ], {"t010": 2, "q05": 0, "q07": 0}),
    ("bak21", "Cold retarding", [
        "Shaped loaves can be left to proof slowly in the refrigerator overnight, a step bakers call retarding.",
        "The cold slows the yeast but lets bacteria keep producing flavour.",
        "The chilled dough is also firmer, so it is easier to score cleanly before baking.",
        "Most loaves can go straight from the fridge into a hot oven.",
    ], {"t011": 3, "q06": 0}),
    ("bak22", "Judging the proof", [
        "A simple way to tell whether dough has proofed enough is the poke test.",
        "Press a floured finger about a centimetre into the dough and watch the dent.",
        "If it springs back slowly and only partly, the dough is ready; if it springs back at once it needs more time, and if it stays put it is over-proofed.",
    ], {"t011": 1, "q05": 0}),
    ("bak23", "Tempering chocolate", [
        "Tempering melts chocolate and then cools it in a controlled way so that the cocoa butter sets in its most stable crystal form.",
        "Well tempered chocolate is glossy, snaps cleanly and does not melt at the touch of a finger.",
        "A common method melts dark chocolate to about forty five degrees Celsius, cools it to around twenty seven, then warms it slightly to thirty one before use.",
    ], {"t012": 3}),
    ("bak24", "Seeding method", [
        "The easiest home way to temper chocolate is the seeding method.",
        "Melt two thirds of the chocolate and then stir in the remaining third as finely chopped pieces.",
        "The solid pieces already contain stable crystals and act as seeds as the mixture cools.",
        "Check the temper by smearing a little on foil; it should set shiny within a few minutes.",
    ], {"t012": 3}),
    ("bak25", "Chocolate bloom", [
        "Grey streaks or a dusty white film on chocolate are called bloom.",
        "Fat bloom comes from poor tempering or storage that is too warm, which lets cocoa butter rise to the surface.",
        "Sugar bloom forms when moisture dissolves sugar that later crystallises.",
        "Bloomed chocolate is safe to eat and can be melted and tempered again.",
    ], {"t012": 2}),
    ("bak26", "Laminated dough", [
        "Croissants and puff pastry are made from laminated dough.",
        "A block of cold butter is sealed in dough, which is rolled out and folded many times to build hundreds of thin layers.",
        "In the hot oven, water in the butter turns to steam and pushes the layers apart.",
        "The dough must be chilled between folds so that the butter never melts into the flour.",
        "The whole process usually takes two or three days for croissants, including long rests in the refrigerator.",
    ], {"t013": 3, "q05": 0}),
    ("bak27", "Rough puff", [
        "Rough puff pastry is a quicker cousin of classic puff pastry.",
        "Instead of a single block, cubes of cold butter are tossed into the flour and the dough is rolled and folded only four or five times.",
        "It rises less evenly but is good enough for sausage rolls and savoury pies.",
        "It takes about an hour instead of most of a day.",
    ], {"t013": 2}),
    ("bak28", "Baking at altitude", [
        "Above about a thousand metres, lower air pressure changes how recipes behave.",
        "Water boils at a lower temperature and gases expand more, so cakes rise too quickly and then collapse.",
        "Bakers at altitude reduce the leavening and sugar slightly, add a little more liquid and raise the oven temperature.",
        "Bread dough also proofs faster and needs to be watched closely.",
    ], {"t014": 3, "t010": 1, "q07": 1}),
    ("bak29", "Honey in baking", [
        "Honey can replace part of the sugar in many cakes and breads.",
        "Because it is acidic, a small pinch of baking soda is often added to balance it, and the liquid in the recipe is reduced a little.",
        "Honey also attracts moisture, so honey cakes stay soft for days.",
        "Bakes brown faster, so the oven is usually turned down slightly.",
    ], {"q07": 1, "q24": 0}),
    ("bak30", "Oven temperature", [
        "Home ovens are often off by ten to twenty degrees from the number on the dial.",
        "An inexpensive oven thermometer shows the real temperature and is one of the most useful tools a baker can buy.",
        "Most ovens also have hot spots, so rotating trays halfway through baking gives more even results.",
    ], {"t010": 1}),
    ("bak31", "Steam and crust", [
        "Professional bread ovens inject steam during the first minutes of baking.",
        "The moist air keeps the surface of the loaf soft so that it can expand fully, and it helps the crust turn glossy.",
        "At home, bakers get a similar effect by baking in a preheated lidded cast iron pot or by pouring hot water into a tray at the bottom of the oven.",
    ], {"q05": 0, "t011": 0}),
    ("bak32", "Coffee in chocolate cake", [
        "Many chocolate cake recipes include a cup of hot brewed coffee.",
        "The coffee does not make the cake taste strongly of coffee; instead it deepens the flavour of the cocoa.",
        "Hot liquid also helps the cocoa powder dissolve and release its aroma.",
        "Espresso powder is a convenient alternative for bakers who do not keep brewed coffee at hand.",
    ], {"q15": 0}),
]
