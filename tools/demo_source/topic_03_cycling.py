"""Cycling and bike repair: punctures, chain slip, tyre pressure, derailleur indexing."""

TOPIC = "cycling"

QUERIES = [
    ("q08", "how to fix a flat bicycle tire"),
    ("q09", "bike chain keeps slipping"),
    ("q10", "what tire pressure should I use for road cycling"),
    ("q11", "rear derailleur indexing adjustment"),
]

TRAIN = [
    ("t015", "paraphrase", "repair a punctured inner tube on a bike"),
    ("t016", "paraphrase", "correct psi for road bike tyres"),
    ("t017", "related", "how do tubeless tyres and sealant work"),
    ("t018", "related", "when should a bicycle chain be replaced"),
    ("t019", "unlike", "how to set the right saddle height"),
    ("t020", "unlike", "disc brakes versus rim brakes"),
    ("t021", "unlike", "heart rate training zones for cyclists"),
]

DOCS = [
    ("cyc01", "Fixing a puncture", [
        "To fix a flat tire, first remove the wheel and let out any remaining air.",
        "Use two plastic tyre levers to lift one side of the tyre off the rim, then pull out the inner tube.",
        "Pump a little air into the tube to find the hole, roughen the area with sandpaper and apply a patch with vulcanising glue.",
        "Before refitting, run your fingers around the inside of the tyre to find and remove whatever caused the puncture.",
        "Inflate the tube slightly, tuck it back inside the tyre, and seat the bead carefully before pumping to full pressure.",
        "Spin the wheel to check that the tyre sits evenly all the way round.",
    ], {"q08": "3:0,1,2,3,4,5", "t015": 3}),
    ("cyc02", "Finding a slow leak", [
        "Some holes are too small to hear or feel.",
        "Inflate the tube and pass it slowly through a bowl of water; a thin stream of bubbles marks the leak.",
        "Mark the spot with chalk before drying the tube, because the hole is easy to lose once it is out of the water.",
        "A leak on the inner side of the tube often points to a sharp spoke end or damaged rim tape.",
    ], {"q08": "2:1,2", "t015": 2}),
    ("cyc03", "Patch or replace the tube", [
        "On a ride, the quickest fix for a flat is to fit a spare inner tube and repair the punctured one at home.",
        "Glueless patches are handy for emergencies but tend to fail sooner than traditional vulcanising patches.",
        "A tube with many patches or a split near the valve should simply be replaced.",
        "Carry a spare tube, levers and a mini pump on every ride.",
    ], {"q08": "3:0,1,2", "t015": 3}),
    ("cyc04", "Refitting the tyre", [
        "When refitting a tyre, put a little air in the new tube so it holds its shape and does not twist.",
        "Push the valve through the rim first, then work the tyre bead onto the rim with your thumbs, finishing at the valve.",
        "Avoid levers on the last section if possible, because they can pinch the tube and cause a new puncture.",
        "Check that the tube is not trapped under the bead before inflating fully.",
    ], {"q08": "2:0,1,2", "t015": 2}),
    ("cyc05", "Pinch flats", [
        "A pinch flat happens when the tyre hits a sharp edge such as a pothole and the tube is squeezed against the rim.",
        "It leaves two small parallel slits, which is why it is also called a snakebite.",
        "Riding with too little air is the main cause, so proper tyre pressure prevents most pinch flats.",
    ], {"q08": 1, "q10": 1, "t016": 1}),
    ("cyc06", "Tubeless tyres", [
        "Tubeless tyres seal directly against the rim, without an inner tube.",
        "A liquid sealant inside the tyre flows into small holes and plugs them within seconds, often before the rider notices.",
        "Larger cuts can be fixed on the road by pushing a sticky rubber plug into the hole.",
        "Sealant dries out over a few months and must be topped up.",
    ], {"t017": 3, "q08": 1}),
    ("cyc07", "Chain skipping under load", [
        "If the chain slips or skips when you pedal hard, the most common cause is a worn chain and cassette.",
        "As a chain wears, its links stretch slightly and no longer sit neatly on the teeth of the sprockets.",
        "A new chain on a badly worn cassette may also skip, so both often need to be replaced together.",
        "A stiff link that does not bend freely can produce a similar regular jump.",
    ], {"q09": "3:0,1,2,3", "t018": 2, "q10": 0}),
    ("cyc08", "Measuring chain wear", [
        "Chain wear is measured with a simple checker tool or a ruler.",
        "Over twelve inches a new chain has exactly twelve full links; when the stretch reaches about half a percent on eleven and twelve speed drivetrains, it is time for a new chain.",
        "Replacing the chain early saves the more expensive cassette and chainrings from wearing out.",
    ], {"q09": "1", "t018": 3}),
    ("cyc09", "Indexing and slipping", [
        "A chain that jumps between sprockets without being asked, or rattles in some gears, often has nothing to do with wear.",
        "The rear derailleur may simply be out of adjustment, so the chain sits between two cogs.",
        "Turning the barrel adjuster by a quarter or half turn usually cures the problem.",
    ], {"q09": "3:0,1,2", "q11": "2:1,2"}),
    ("cyc10", "Adjusting the rear derailleur", [
        "Indexing means setting the cable tension so that each click of the shifter moves the chain exactly one sprocket.",
        "Shift to the smallest cog, then turn the barrel adjuster anticlockwise while shifting up until the chain climbs cleanly to the next cog.",
        "If it hesitates, add tension; if it overshoots or is noisy, release tension.",
        "Check every gear before riding.",
    ], {"q11": "3:0,1,2", "q09": "2:2"}),
    ("cyc11", "Limit screws", [
        "The two small limit screws on a rear derailleur, marked H and L, stop the chain from falling off either end of the cassette.",
        "They should be set before the indexing is adjusted.",
        "If the chain drops into the spokes, the low limit screw needs tightening, which is a dangerous fault to leave unfixed.",
        "Limit screws do not change how the gears shift in between.",
    ], {"q11": "2:0,1", "q09": 1}),
    ("cyc12", "Bent derailleur hanger", [
        "The derailleur hanger is a small metal plate that holds the rear derailleur to the frame.",
        "It is designed to bend in a crash so the frame is not damaged, but a bent hanger makes precise indexing impossible.",
        "If adjusting the cable does not fix the shifting, check the hanger with an alignment tool or replace it.",
    ], {"q11": "3:1,2", "q09": "2:1,2"}),
    ("cyc13", "Cable stretch", [
        "New gear cables stretch slightly in their first weeks of use, and the housing settles into its ferrules.",
        "The result is gradually sloppy shifting that can be corrected with the barrel adjuster.",
        "Many shops offer a free adjustment after a month for exactly this reason.",
        "Corroded or frayed cables should be replaced rather than adjusted.",
    ], {"q11": "2:0,1", "q09": 1}),
    ("cyc14", "Front derailleur rub", [
        "A chain that rubs against the front derailleur cage makes a scraping noise.",
        "The front derailleur is adjusted in much the same way as the rear one, with limit screws and cable tension.",
        "Some rubbing in extreme gear combinations is normal, which is one reason riders avoid crossing the chain from big ring to biggest cog.",
    ], {"q11": 0, "q09": 0}),
    ("cyc15", "Road tyre pressure", [
        "Road cyclists once pumped their tyres as hard as possible, often to over one hundred psi.",
        "Tests have since shown that slightly lower pressure is faster on real roads, because the tyre absorbs vibration instead of bouncing.",
        "For a rider of about seventy five kilograms on 28 mm tyres, a pressure around seventy to eighty psi is a sensible starting point.",
        "Heavier riders and narrower tyres need more.",
    ], {"q10": "3:1,2,3", "t016": 3}),
    ("cyc16", "Pressure and tyre width", [
        "The right tyre pressure depends mainly on rider weight and tyre width.",
        "A wider tyre holds the same load at lower pressure, which makes it more comfortable and grippy.",
        "Many tyre makers publish charts or online calculators that suggest a front and rear pressure, with the rear slightly higher because it carries more weight.",
        "Never exceed the maximum printed on the sidewall or the rim.",
    ], {"q10": "3:0,1,2,3", "t016": 3}),
    ("cyc17", "Checking pressure", [
        "Inner tubes lose air slowly, and latex tubes can drop noticeably overnight.",
        "Check tyre pressure before each ride with a floor pump that has a gauge.",
        "Squeezing the tyre with your thumb is not a reliable way to judge pressure.",
        "Presta valves must have their small lock nut undone before pumping.",
    ], {"q10": 1, "t016": 1, "q08": 0}),
    ("cyc18", "Wet weather pressure", [
        "On wet roads many riders let out five to ten psi.",
        "A slightly softer tyre has a larger contact patch and grips better on slippery surfaces and painted lines.",
        "Gravel and mountain bikes run far lower pressures still, often below thirty psi, especially with tubeless setups.",
        "Whatever the surface, change pressure in small steps and note how the bike feels before changing it again.",
    ], {"q10": "2:0,1", "t016": 2, "t017": 1}),
    ("cyc19", "Rolling resistance", [
        "Rolling resistance is the energy lost as the tyre flexes where it touches the road.",
        "Supple casings, thin tubes and good rubber lower it, and on smooth surfaces higher pressure lowers it as well.",
        "On rough surfaces the picture changes, since a hard tyre makes the whole bike and rider vibrate.",
        "Laboratory drum tests therefore favour pressures that are too high for the road.",
    ], {"q10": 1}),
    ("cyc20", "Saddle height", [
        "A saddle set at the right height lets the knee stay slightly bent at the bottom of the pedal stroke.",
        "One common rule multiplies the inseam length by 0.883 to get the distance from the centre of the crank to the top of the saddle.",
        "A saddle that is too low strains the knees, while one that is too high makes the hips rock.",
        "Change height in small steps of a few millimetres.",
    ], {"t019": 3}),
    ("cyc21", "Bike fit basics", [
        "A professional bike fit adjusts saddle height, saddle setback, handlebar reach and cleat position to the rider.",
        "Many aches in knees, back and hands come from a poor fit rather than from riding too much.",
        "The fitter usually films the rider on a trainer and measures joint angles.",
        "Small changes suggested by a fitter can make long rides far more comfortable.",
    ], {"t019": 2}),
    ("cyc22", "Rim brakes", [
        "Rim brakes squeeze pads against the braking surface of the wheel rim.",
        "They are light, cheap and easy to service at the roadside.",
        "In the rain their performance drops, and the pads slowly wear the rim away.",
        "Carbon rims need special pads and can overheat on long descents.",
        "Checking that the pads meet the rim squarely keeps them from squealing.",
    ], {"t020": 2}),
    ("cyc23", "Disc brakes", [
        "Disc brakes clamp a rotor mounted at the hub, away from the dirt and water on the rim.",
        "Hydraulic disc brakes give strong, consistent stopping in all weather with little effort at the lever.",
        "They are heavier than rim brakes and can squeal if the rotor gets contaminated with oil.",
        "Most new road and gravel bikes now come with disc brakes.",
    ], {"t020": 3}),
    ("cyc24", "Training zones", [
        "Cyclists often train by heart rate zones based on their maximum or threshold heart rate.",
        "Zone two, a comfortable pace at which you can still talk, builds aerobic endurance and makes up most of the training of professionals.",
        "Short efforts in higher zones improve the ability to ride hard for a few minutes.",
        "Power meters measure output directly and do not lag behind efforts like heart rate does.",
        "Most amateur riders spend too much time at a moderately hard pace, which tires them without bringing the benefits of either easy or very hard training.",
    ], {"t021": 3}),
    ("cyc25", "Cleaning and lubing a chain", [
        "A clean chain shifts better and lasts longer.",
        "Wipe it with a rag after wet rides, degrease it every few hundred kilometres, and apply a drop of lube to each roller.",
        "Wipe off the excess, since oil on the outside only collects grit that grinds the drivetrain.",
        "Wax-based lubricants keep chains cleaner but need more frequent application.",
    ], {"t018": 1, "q09": 0}),
    ("cyc26", "Replacing a cassette", [
        "Replacing a cassette needs a lockring tool and a chain whip.",
        "The chain whip holds the sprockets still while the lockring is loosened anticlockwise.",
        "Slide the new cassette onto the freehub body, matching the wide spline, and tighten the lockring to the torque printed on it.",
        "Fit a new chain at the same time if the old one is worn.",
    ], {"q09": 1, "t018": 1}),
    ("cyc27", "Spoke tension and wobbly wheels", [
        "A wheel that wobbles from side to side is out of true.",
        "Tightening a spoke pulls the rim toward the side where that spoke meets the hub, and loosening it lets the rim move away.",
        "Small corrections of a quarter turn at a time, spread over several spokes, give the best results.",
    ], {"q08": 0, "q11": 0}),
    ("cyc28", "Commuting in winter", [
        "Winter commuting needs lights, mudguards and tyres with good grip.",
        "Salt and grit wear chains quickly, so chains should be rinsed and oiled more often.",
        "Studded tyres make riding on ice possible, though they are slow and noisy on clear tarmac.",
        "Lower tyre pressure adds grip on snow.",
        "A bright rear light during the day also makes riders easier to see in poor weather.",
    ], {"q10": 1, "q09": 0}),
    ("cyc29", "Tubeless setup", [
        "Setting up a tubeless tyre starts with sealing the rim bed using tubeless tape.",
        "A tubeless valve is fitted and the tyre is seated with a sudden burst of air from a compressor or a charger pump.",
        "Once the bead pops into place, the sealant is poured in through the valve and the wheel is shaken to spread it.",
    ], {"t017": 3, "q10": 0}),
    ("cyc30", "Budget for a first road bike", [
        "A reliable entry level road bike with an aluminium frame and mechanical shifting can be bought for well under two thousand dollars.",
        "Spending more mostly saves weight and adds electronic shifting rather than comfort.",
        "Set aside money for a helmet, lights, a floor pump and basic tools, which add up quickly.",
        "A used bike checked by a mechanic can be an excellent deal.",
    ], {"q38": 0, "q10": 0}),
    ("cyc31", "Cycling and coffee culture", [
        "The café stop is a fixture of club rides around the world.",
        "Riders often plan routes around a good espresso halfway, and many bike shops now run their own coffee bars.",
        "A moderate dose of caffeine also improves endurance performance, which is why it appears in many sports gels.",
        "Some riders joke that the ride is only an excuse to visit the caf\u00e9.",
    ], {"q15": 0}),
    ("cyc32", "Tyre levers and tools", [
        "A basic roadside kit holds tyre levers, a patch kit, a spare tube, a multi tool and a mini pump or carbon dioxide inflator.",
        "Carbon dioxide cartridges inflate a tyre in seconds but leak out of butyl tubes faster than air.",
        "Practising a tube change at home makes the real thing far less stressful.",
        "Some riders also carry a tyre boot for large cuts.",
    ], {"q08": "2:0,2", "t015": 2}),
]
