"""Sailing: sailing upwind, celestial navigation, reefing (plus tacking, weather, knots, anchoring)."""

TOPIC = "sailing"

QUERIES = [
    ("q29", "how can a sailboat sail against the wind"),
    ("q30", "celestial navigation with a sextant"),
    ("q31", "when to reef the mainsail"),
]

TRAIN = [
    ("t057", "paraphrase", "sailing upwind close hauled explained"),
    ("t058", "paraphrase", "finding position at sea with a sextant and the stars"),
    ("t059", "related", "difference between tacking and gybing"),
    ("t060", "related", "checking the marine weather forecast before a sail"),
    ("t061", "unlike", "how to tie a bowline knot"),
    ("t062", "unlike", "anchoring a sailboat overnight"),
    ("t063", "paraphrase", "reducing sail area in strong winds"),
]

DOCS = [
    ("sai01", "Sailing upwind", [
        "A sailboat cannot sail directly into the wind, but it can sail surprisingly close to it.",
        "When the sail is set at a shallow angle to the wind, air flowing around its curved surface creates lift, much like an aircraft wing.",
        "The keel resists sideways slip, so the combined forces drive the boat forward at an angle of about forty five degrees to the wind.",
        "This point of sail is called close hauled.",
    ], {"q29": "3:0,1,2,3", "t057": 3}),
    ("sai02", "The role of the keel", [
        "Without a keel or centreboard, a sailboat heading upwind would simply be blown sideways.",
        "The keel acts as an underwater wing: as the boat slips slightly, water flowing past it creates a sideways force that balances the push of the sails.",
        "A heavy ballast keel also keeps the boat upright against the heeling force of the wind.",
        "Racing dinghies use a movable centreboard that can be raised downwind.",
    ], {"q29": "3:0,1", "t057": 2}),
    ("sai03", "Beating to windward", [
        "To reach a destination directly upwind, a sailor zigzags in a series of close hauled legs, turning the bow through the wind between them.",
        "This is called beating to windward, and each turn is a tack.",
        "Because each leg is at an angle, the distance sailed is roughly forty percent longer than the straight line.",
        "Good sailors pick the tack that takes advantage of shifts in wind direction.",
    ], {"q29": "3:0,1,2", "t057": 2, "t059": 2}),
    ("sai04", "Sail trim upwind", [
        "Sailing efficiently upwind depends on trim.",
        "Ribbons called telltales sewn onto the sail show whether air flows smoothly on both sides; if the inside ones flutter, the boat is pointing too close to the wind.",
        "The sheets are pulled in tight, and the sail is flattened in strong winds to reduce power.",
        "Steering by the telltales becomes second nature with practice.",
    ], {"q29": "2:1,2", "t057": 2, "q31": 1}),
    ("sai05", "Points of sail", [
        "The points of sail describe the angle between the boat's heading and the wind.",
        "Close hauled is as close to the wind as the boat can sail, a beam reach has the wind across the side, a broad reach has it behind the beam, and running has it directly astern.",
        "The no-go zone is the arc of about ninety degrees centred on the wind, where the sails just flap.",
        "Most boats are fastest on a reach.",
    ], {"q29": "2:1,2", "t057": 1}),
    ("sai06", "Apparent wind", [
        "The wind a moving boat feels is not the true wind but the apparent wind, a combination of the true wind and the wind made by the boat's own motion.",
        "Sailing upwind, the apparent wind is stronger and comes from further ahead than the true wind.",
        "Fast boats such as foiling catamarans create so much apparent wind that they can sail faster than the wind itself.",
    ], {"q29": 1, "t057": 1}),
    ("sai07", "Tacking and gybing", [
        "A tack turns the bow of the boat through the wind, and a gybe turns the stern through it.",
        "During a tack the sails flap briefly and the boom swings across slowly, so it is a controlled manoeuvre.",
        "In a gybe the wind suddenly fills the sail from the other side and the boom can slam across with great force.",
        "Crews shout a warning before a gybe so nobody is hit.",
    ], {"t059": 3, "q29": 1}),
    ("sai08", "The sextant", [
        "A sextant measures the angle between a celestial body and the horizon.",
        "The navigator looks at the horizon through a small telescope and adjusts an arm with a mirror until the reflected image of the Sun or a star just touches it.",
        "The angle is read from a scale on the arc, often to a fraction of a minute of arc.",
        "The instrument gets its name from its arc, which is one sixth of a circle.",
        "Corrections are then applied for the height of eye and the bending of light in the atmosphere.",
        "A well made sextant can last a lifetime if it is kept dry and handled gently.",
    ], {"q30": "3:0,1,2,4", "t058": 3}),
    ("sai09", "A noon sight", [
        "The simplest celestial fix is the noon sight for latitude.",
        "At local noon the Sun reaches its highest point, and the navigator measures its altitude with a sextant.",
        "Subtracting that angle from ninety degrees and correcting for the Sun's declination, found in the nautical almanac, gives the latitude directly.",
        "Sailors took noon sights daily for centuries.",
    ], {"q30": "3:0,1,2", "t058": 3}),
    ("sai10", "Sight reduction", [
        "To find a full position, the navigator notes the exact time of each sextant sight.",
        "Using the almanac, she computes where the observed body stood directly overhead at that moment and works out a line of position.",
        "Lines from two or three stars observed at dusk cross at the ship's position.",
        "Tables or a small calculator do the spherical trigonometry.",
    ], {"q30": "3:0,1,2,3", "t058": 3}),
    ("sai11", "Chronometers and longitude", [
        "Every four minutes of time error puts a celestial position one degree of longitude wrong.",
        "John Harrison's marine chronometers in the eighteenth century finally kept time accurately enough on a rolling ship.",
        "Today navigators simply set a quartz watch against a radio time signal.",
        "Longitude is then found by comparing the local time of a sight with the time at Greenwich.",
    ], {"q30": "2:0,1", "t058": 2}),
    ("sai12", "Why learn celestial navigation", [
        "Most yachts now navigate by satellite, so celestial navigation may seem old fashioned.",
        "Yet electronics can fail, lose power or be jammed, and a sextant needs no batteries.",
        "Many ocean sailors carry one and practise regularly, and some navies have brought back training in the skill.",
        "Taking a sight from a small pitching boat takes practice.",
    ], {"q30": "2:1,2", "t058": 1}),
    ("sai13", "Reefing the mainsail", [
        "Reefing means reducing the area of a sail so the boat is not overpowered.",
        "On most cruising yachts the mainsail is lowered part way and the lower section is secured along the boom with lines through reef points.",
        "A reefed boat heels less, steers more easily and is often faster in strong winds than one carrying full sail.",
    ], {"q31": "3:0,1,2", "t063": 3, "q30": 0}),
    ("sai14", "When to reef", [
        "The old saying is that the time to reef is when you first think about it.",
        "Signs include the boat heeling so far that the rail dips, heavy weather helm that makes steering hard, and a forecast of rising wind.",
        "Many skippers reef before leaving harbour if strong wind is expected, because reefing at sea in a gale is harder and more dangerous.",
        "Reefing at night is also wise, since squalls are hard to see.",
    ], {"q31": "3:0,1,2,3", "t063": 3, "t060": 1}),
    ("sai15", "Reefing the headsail", [
        "On modern yachts the headsail is usually on a roller furler, so it can be partly rolled up from the cockpit.",
        "A heavily rolled sail loses its shape, however, so in strong winds many sailors switch to a smaller storm jib.",
        "Keeping the sail plan balanced between the front and back of the boat makes steering easier.",
    ], {"q31": 1, "t063": 2}),
    ("sai16", "Heavy weather tactics", [
        "When the wind rises beyond what reefing can handle, sailors have a few options.",
        "Heaving to sets the sails and rudder against each other so the boat drifts slowly and rides the waves quietly.",
        "Running before the storm under bare poles, sometimes with a drogue trailing behind, keeps the stern to the waves.",
        "Preparing early is the most important part of heavy weather sailing.",
    ], {"q31": 1, "t063": 1, "t060": 0}),
    ("sai17", "Reading the marine forecast", [
        "Before a sail, check the marine forecast for wind strength, direction and how they will change during the day.",
        "Pay attention to gusts, which can be half again as strong as the average wind, and to warnings of squalls or fog.",
        "Tide tables matter too, since wind against tide builds steep, uncomfortable waves.",
        "Many sailors also read the pressure maps to see fronts approaching.",
    ], {"t060": 3, "q31": 1}),
    ("sai18", "The Beaufort scale", [
        "The Beaufort scale describes wind strength from force zero, flat calm, to force twelve, hurricane.",
        "Force four, a moderate breeze of eleven to sixteen knots, is ideal for many small boats, while force six brings large waves with white foam crests.",
        "Many cruising sailors put in the first reef around force five.",
    ], {"t060": 2, "q31": "2:2", "t063": 1}),
    ("sai19", "The bowline", [
        "The bowline makes a fixed loop at the end of a rope that will not slip or jam.",
        "Form a small loop in the standing part, pass the end up through it, around the back of the standing part and down through the loop again.",
        "Sailors remember this with the story of the rabbit that comes out of the hole, goes around the tree and back down the hole.",
        "It can be untied easily even after heavy loading.",
    ], {"t061": 3}),
    ("sai20", "Essential knots", [
        "A handful of knots cover most needs on a boat.",
        "The cleat hitch secures a line to a cleat, the clove hitch ties a fender to a rail, the figure of eight stops a line running out through a block, and the reef knot ties the reef points of a sail.",
        "Practising until the knots can be tied in the dark is worthwhile.",
    ], {"t061": 2, "q31": 1}),
    ("sai21", "Anchoring", [
        "To anchor, choose a sheltered spot with good holding ground such as sand or mud, away from other boats.",
        "Head slowly into the wind, lower the anchor to the bottom and let out chain as the boat drifts back.",
        "A scope of at least five times the depth of water is usual for chain.",
        "Reverse gently to dig the anchor in, and take bearings on landmarks to check that it is not dragging.",
        "When leaving, motor slowly toward the anchor while taking in chain so that the anchor breaks out cleanly.",
    ], {"t062": 3, "q30": 0}),
    ("sai22", "A night at anchor", [
        "Before settling for the night, check how the wind and tide are forecast to change, since the boat will swing around its anchor.",
        "Show an anchor light so other boats can see you.",
        "An anchor alarm on a phone or plotter warns if the boat moves outside its swinging circle.",
        "A snubber line takes the jerks off the chain and makes for a quieter night.",
    ], {"t062": 3, "t060": 1}),
    ("sai23", "Tides and currents", [
        "Tidal currents can run at several knots in narrow channels.",
        "Sailors time passages so the current carries them along rather than against them, often planning with tidal atlases.",
        "A boat sailing upwind against a strong current may make almost no progress over the ground.",
        "Anchored boats also turn to face the stream when the current is stronger than the wind.",
    ], {"q29": 0, "t060": 1}),
    ("sai24", "Dinghy capsize recovery", [
        "Small sailing dinghies capsize often, and recovering is a basic skill.",
        "The sailor climbs onto the centreboard and leans back to lever the boat upright, while a crew member lies in the water inside the boat and is scooped in as it comes up.",
        "Wearing a buoyancy aid is essential.",
        "Practising in warm, shallow water builds confidence.",
    ], {"q31": 0, "q29": 0}),
    ("sai25", "Man overboard", [
        "If someone falls overboard, shout, throw a lifebuoy and point at the person constantly.",
        "Press the man overboard button on the plotter to mark the position.",
        "Many instructors teach the quick stop method, turning the boat immediately to stay close.",
        "Getting a person back aboard is often the hardest part, so a lifting sling or ladder should be ready.",
    ], {"q31": 0}),
    ("sai26", "Polynesian wayfinding", [
        "Polynesian navigators crossed thousands of kilometres of the Pacific without instruments.",
        "They memorised the rising and setting points of many stars, read the shape of ocean swells and watched birds and clouds that form over islands.",
        "The voyage of the canoe Hokule'a from Hawaii to Tahiti in 1976 showed that these methods work.",
    ], {"q30": 1, "t058": 1}),
    ("sai27", "Wind shifts and the weather", [
        "Wind rarely blows steadily from one direction.",
        "Upwind, a shift that lets the boat point closer to its destination is called a lift, and one that forces it away is a header.",
        "Racing sailors tack on headers to make the most of these changes.",
        "Sea breezes often build in the afternoon on sunny days as the land heats.",
    ], {"q29": "2:1,2", "t059": 1}),
    ("sai28", "Learning to sail", [
        "Most people learn to sail in small dinghies, which respond quickly and teach the feel of the wind.",
        "Beginner courses cover rigging, points of sail, tacking, gybing and capsize drills over a few days.",
        "Crewing on a club racing yacht is a good next step and often costs nothing.",
        "Reading a basic book on navigation rules before the first course helps a great deal.",
    ], {"t059": 1}),
    ("sai29", "Sailboat rigs", [
        "A sloop has a single mast with a mainsail and one headsail and is the most common rig today.",
        "A ketch has a second, shorter mast behind the main one, which splits the sail area into smaller, easier sails.",
        "Catboats carry one sail only.",
        "The choice of rig affects how a boat balances and how easily its sails can be shortened.",
    ], {"q31": 1}),
    ("sai30", "Sailing cargo ships", [
        "Some shipping companies are returning to wind power to cut fuel costs and emissions.",
        "Modern cargo ships are being fitted with rigid wing sails, rotor sails that use the Magnus effect, and large kites.",
        "Even partial wind assistance can save a large share of the fuel on suitable routes.",
        "Supporters hope that such ships will make up a growing share of the world fleet.",
    ], {"q29": 0}),
    ("sai31", "Weather helm", [
        "A boat with weather helm tends to turn into the wind if the tiller is released.",
        "A little is useful because it gives feel and the boat rounds up safely in a gust.",
        "Too much means the mainsail is overpowered, and the helmsman must hold the rudder at an angle that acts like a brake.",
        "Reefing the main or easing the mainsheet moves the balance forward.",
    ], {"q31": "2:2,3", "t063": 2}),
    ("sai32", "Sailing by the stars at night", [
        "Night sailing has its own rewards: phosphorescence in the wake and a sky full of stars far from city lights.",
        "Helmsmen often steer by lining up a star with part of the rigging instead of staring at the compass.",
        "The star must be changed every half hour or so as it moves across the sky.",
    ], {"q30": 1, "q01": 0}),
]
