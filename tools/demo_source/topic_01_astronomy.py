"""Astronomy: star formation, black holes, lunar phases, exoplanets (plus comets, telescopes, aurora)."""

TOPIC = "astronomy"

QUERIES = [
    ("q01", "how do stars form"),
    ("q02", "black hole event horizon"),
    ("q03", "why does the moon have phases"),
    ("q04", "exoplanet detection transit method"),
]

TRAIN = [
    ("t001", "paraphrase", "what process creates new stars in space"),
    ("t002", "paraphrase", "finding planets around other stars by watching them dim"),
    ("t003", "related", "what happens when a massive star dies"),
    ("t004", "related", "what causes a lunar eclipse"),
    ("t005", "unlike", "why do comets have tails"),
    ("t006", "unlike", "difference between refracting and reflecting telescopes"),
    ("t007", "unlike", "what causes the northern lights"),
]

DOCS = [
    ("ast01", "Stellar nurseries", [
        "Stars form inside cold, dense clouds of gas and dust called molecular clouds.",
        "When a region of such a cloud becomes dense enough, its own gravity overwhelms the gas pressure and it begins to collapse.",
        "The collapsing clump heats up as it shrinks, forming a protostar surrounded by a flattened disk of material.",
        "Once the core reaches about ten million kelvin, hydrogen fusion ignites and a true star is born.",
    ], {"q01": "3:0,1,2,3", "t001": 3, "q03": 0}),
    ("ast02", "Triggers of collapse", [
        "A molecular cloud can sit in balance for millions of years before anything happens.",
        "Collapse is often triggered from outside, for example by the shock wave of a nearby supernova or by the collision of two clouds.",
        "The compressed gas fragments into many clumps, which is why stars tend to be born in clusters rather than alone.",
        "The Orion Nebula is a well studied example of a region where this process is happening today.",
    ], {"q01": "3:1,2", "t001": 3, "t003": 1}),
    ("ast03", "Protostars and their disks", [
        "A protostar is a young object that is still gathering mass from its parent cloud.",
        "Because the infalling gas carries angular momentum, it settles into a rotating disk instead of falling straight in.",
        "Powerful jets shoot out along the rotation axis and carry some of that spin away.",
        "The same disk later supplies the raw material from which planets can grow.",
        "This early stage is hidden behind dust, so astronomers study it with infrared and radio telescopes.",
    ], {"q01": "2:0,1,2", "t001": 2, "q04": 0}),
    ("ast04", "Brown dwarfs", [
        "Not every collapsing clump becomes a star.",
        "If the final object has less than about eight percent of the mass of the Sun, its core never gets hot enough to fuse ordinary hydrogen.",
        "Such failed stars are called brown dwarfs, and they glow faintly in the infrared as they slowly cool.",
        "They sit between the largest gas giant planets and the smallest true stars.",
    ], {"q01": "2:0,1", "t001": 1, "q04": 0}),
    ("ast05", "Main sequence life", [
        "After ignition, a star spends most of its life on the main sequence, steadily fusing hydrogen into helium in its core.",
        "The outward pressure from this energy balances the inward pull of gravity.",
        "A star like the Sun stays in this stable phase for about ten billion years, while a very massive star burns through its fuel in only a few million.",
        "Mass is therefore the single most important property that decides how a star will live.",
    ], {"q01": 1, "t003": 1}),
    ("ast06", "Star formation rate of the Milky Way", [
        "Our galaxy turns only a few solar masses of gas into new stars each year.",
        "Most of this activity happens in the spiral arms, where gas is squeezed as it passes through regions of higher density.",
        "Elliptical galaxies, by contrast, have used up or lost most of their cold gas and form very few new stars.",
        "Astronomers estimate these rates by counting young, hot blue stars and the glowing hydrogen clouds around them.",
    ], {"q01": "2:0,1", "t001": 2}),
    ("ast07", "What a black hole is", [
        "A black hole is a region of space where gravity is so strong that nothing, not even light, can escape.",
        "The boundary of this region is called the event horizon.",
        "Anything that crosses the event horizon is cut off from the rest of the universe for good.",
        "The horizon is not a solid surface; a falling astronaut would notice nothing special at the moment of crossing if the black hole were large enough.",
        "The idea goes back to 1783, when the English clergyman John Michell imagined stars so massive that light could not leave them.",
        "Modern black holes are described by Einstein's general theory of relativity, which predicts their properties with remarkable precision.",
    ], {"q02": "3:0,1,2,3", "q01": 0}),
    ("ast08", "The Schwarzschild radius", [
        "For a black hole that does not rotate, the size of the event horizon is given by the Schwarzschild radius.",
        "This radius grows in proportion to the mass.",
        "A black hole with the mass of the Sun would have a horizon only about three kilometres across, while the giant black hole at the centre of our galaxy has a horizon larger than the orbit of Mercury.",
        "Compressing the Earth to the size of a marble would turn it into a black hole as well.",
    ], {"q02": "3:0,1,2"}),
    ("ast09", "Stellar black holes", [
        "When a star more than about twenty times as massive as the Sun runs out of fuel, its core can collapse without limit.",
        "The outer layers may be blasted away in a supernova while the core becomes a black hole of a few to a few dozen solar masses.",
        "Such stellar black holes are often found in pairs with ordinary stars, whose gas they strip away and heat until it shines in X-rays.",
    ], {"q02": "1", "t003": 3, "q01": 0}),
    ("ast10", "Photographing a shadow", [
        "In 2019 the Event Horizon Telescope released the first image of the surroundings of a black hole, in the galaxy M87.",
        "The project linked radio dishes across the globe into one virtual telescope the size of the Earth.",
        "The picture shows a bright ring of hot gas surrounding a dark central shadow.",
        "The shadow is somewhat larger than the event horizon itself, because light bends strongly as it passes close to the hole.",
    ], {"q02": "3:0,2,3", "t006": 1}),
    ("ast11", "Hawking radiation", [
        "Stephen Hawking showed that quantum effects near the event horizon should make black holes emit a faint glow.",
        "This radiation slowly carries away energy, so over immense spans of time a black hole can evaporate.",
        "For any black hole formed from a star the effect is far too weak to detect, since the hole absorbs more from the cosmic background than it emits.",
    ], {"q02": "2:0,1"}),
    ("ast12", "Spaghettification", [
        "Close to a small black hole, the pull of gravity changes sharply over short distances.",
        "An object falling feet first would feel its feet pulled much harder than its head, and it would be stretched into a thin strand.",
        "Physicists jokingly call this spaghettification.",
        "Around supermassive black holes the stretching is gentle at the event horizon, so a traveller would cross intact and only be torn apart deeper inside.",
    ], {"q02": "2:0,3"}),
    ("ast13", "Lunar phases explained", [
        "The Moon does not make its own light; we see it because it reflects sunlight.",
        "At any time half of the Moon is lit by the Sun, but as it orbits the Earth we see different portions of that lit half.",
        "When the Moon lies between the Earth and the Sun we see the dark side, which is the new moon.",
        "When it lies on the far side of the Earth we see the whole lit face as a full moon.",
    ], {"q03": "3:0,1,2,3"}),
    ("ast14", "The cycle of phases", [
        "A full cycle from new moon to new moon takes about twenty nine and a half days, a period called the synodic month.",
        "In between, the Moon passes through waxing crescent, first quarter, waxing gibbous, full, waning gibbous, last quarter and waning crescent.",
        "Waxing means the lit part is growing, and waning means it is shrinking.",
        "The names describe the shape we see, not any change in the Moon itself.",
    ], {"q03": "3:0,1,2,3", "t004": 0}),
    ("ast15", "A common misconception", [
        "Many people believe that the phases of the Moon are caused by the shadow of the Earth.",
        "This is not so: the changing shape comes only from the angle between the Sun, the Earth and the Moon.",
        "The Earth's shadow falls on the Moon only during a lunar eclipse, which happens at full moon and lasts a few hours.",
        "During an eclipse the Moon often turns a coppery red because sunlight is bent through the Earth's atmosphere.",
    ], {"q03": "3:0,1", "t004": 3}),
    ("ast16", "Eclipses and the tilted orbit", [
        "If the Moon orbited in exactly the same plane as the Earth goes around the Sun, there would be an eclipse every month.",
        "The lunar orbit is tilted by about five degrees, so most new and full moons pass just above or below the line between Sun and Earth.",
        "Eclipses happen only when a new or full moon falls near one of the two crossing points of the orbits.",
    ], {"q03": 1, "t004": 3}),
    ("ast17", "Tides and the Moon", [
        "The gravity of the Moon pulls the oceans slightly toward it, raising a bulge of water on the near side of the Earth and another on the far side.",
        "As the Earth turns beneath these bulges, most coasts see two high tides a day.",
        "The largest tides, called spring tides, happen around new and full moon, when the Sun and Moon pull along the same line.",
        "Sailors plan harbour entries around these times.",
    ], {"q03": 0, "q29": 0}),
    ("ast18", "Earthshine", [
        "A few days after new moon, the dark part of the crescent Moon can often be seen glowing faintly.",
        "This light is sunlight that has bounced off the Earth onto the Moon and back again, and it is called earthshine.",
        "Leonardo da Vinci gave the correct explanation five centuries ago.",
        "Its brightness changes with the amount of cloud and ice on the Earth that reflects sunlight.",
    ], {"q03": 1}),
    ("ast19", "The transit method", [
        "Most known exoplanets were found with the transit method.",
        "When a planet passes in front of its star as seen from the Earth, it blocks a tiny fraction of the starlight.",
        "A telescope that measures the brightness of the star very precisely records a small, regular dip each time the planet crosses.",
        "The depth of the dip reveals the size of the planet relative to the star, and the time between dips gives its orbital period.",
    ], {"q04": "3:0,1,2,3", "t002": 3}),
    ("ast20", "Kepler and TESS", [
        "The Kepler space telescope stared at one patch of sky for four years and watched about one hundred and fifty thousand stars for transits.",
        "It discovered thousands of planets and showed that small rocky planets are common.",
        "Its successor, TESS, scans nearly the whole sky and looks for transits around bright nearby stars.",
        "Planets found by TESS are easier to follow up with other instruments.",
        "Because a transit is only seen when the orbit is lined up almost edge-on, most planets around these stars were never detectable this way, and the true number of planets is far larger than the catalogue suggests.",
    ], {"q04": "3:0,1,2,4", "t002": 3, "t006": 0}),
    ("ast21", "The wobble method", [
        "A planet and its star both orbit their common centre of mass, so the star moves in a small circle.",
        "This motion shifts the lines in the spectrum of the star back and forth through the Doppler effect.",
        "Measuring these radial velocity shifts gives the minimum mass of the planet.",
        "The first planet around a Sun-like star, 51 Pegasi b, was found this way in 1995.",
    ], {"q04": "1", "t002": 0}),
    ("ast22", "False positives", [
        "Not every dip in starlight is a planet.",
        "An eclipsing pair of stars in the background, blended with the target, can mimic a transit.",
        "Starspots rotating into view can also cause dimming, though it is usually irregular.",
        "For that reason candidate planets found by transit surveys are confirmed with independent measurements, often radial velocity.",
    ], {"q04": "2:0,1,3", "t002": 2}),
    ("ast23", "Reading exoplanet atmospheres", [
        "During a transit, a thin ring of starlight filters through the atmosphere of the planet.",
        "Molecules such as water vapour and carbon dioxide absorb certain wavelengths, so the planet looks slightly bigger at those colours.",
        "The James Webb Space Telescope uses this transmission spectroscopy to study the air of distant worlds.",
    ], {"q04": "2:0,1,2", "t006": 0}),
    ("ast24", "Direct imaging", [
        "Photographing an exoplanet directly is very hard, because the star is often a billion times brighter than the planet.",
        "Instruments called coronagraphs block the light of the star so that faint companions nearby can be seen.",
        "Direct imaging works best for young, hot giant planets far from their stars.",
        "Such planets still glow with the heat of their formation, which makes them easier to pick out in infrared light.",
    ], {"q04": 1}),
    ("ast25", "Supernovae", [
        "A massive star ends its life when its core, full of iron, can no longer release energy by fusion.",
        "The core collapses within a second and the rebound drives a shock wave that tears the star apart.",
        "For a few weeks this supernova can outshine an entire galaxy.",
        "The explosion spreads heavy elements into space, where they are later built into new stars and planets.",
    ], {"q01": 0, "t003": 3, "q02": 0}),
    ("ast26", "Neutron stars", [
        "If the collapsing core of a dying star weighs less than about three solar masses, it can stop shrinking and form a neutron star.",
        "A neutron star packs more mass than the Sun into a ball about twenty kilometres across.",
        "Some spin hundreds of times per second and sweep beams of radio waves across space; these are pulsars.",
    ], {"t003": 2, "q02": 0}),
    ("ast27", "Why comets grow tails", [
        "A comet is a lump of ice and dust that spends most of its time far from the Sun.",
        "As it approaches the Sun, the ices turn directly into gas and release dust, forming a glowing cloud called the coma.",
        "Sunlight pushes the dust into a curved tail, while the solar wind drags the gas into a straight blue ion tail.",
        "Both tails always point away from the Sun, even when the comet is moving outward.",
    ], {"t005": 3}),
    ("ast28", "Meteor showers", [
        "Comets shed dust along their orbits.",
        "When the Earth passes through such a trail each year, the grains burn up high in the atmosphere and we see a meteor shower.",
        "The Perseids in August come from the comet Swift-Tuttle.",
        "Most meteors are smaller than a grain of sand and never reach the ground.",
    ], {"t005": 1}),
    ("ast29", "Refractors and reflectors", [
        "Telescopes gather light with either a lens or a mirror.",
        "A refracting telescope uses a large lens at the front, which can suffer from colour fringes because glass bends colours by different amounts.",
        "A reflecting telescope uses a curved mirror instead, which focuses all colours at the same point.",
        "Mirrors can be supported from behind, so all the largest research telescopes are reflectors.",
    ], {"t006": 3, "q04": 0}),
    ("ast30", "Choosing a first telescope", [
        "For a beginner, the size of the aperture matters more than the magnification printed on the box.",
        "A wider opening collects more light and shows fainter objects and finer detail.",
        "A simple reflector on a Dobsonian mount gives a lot of aperture for the money and is easy to use.",
        "Good binoculars are also an excellent way to start learning the sky.",
    ], {"t006": 2, "q38": 0}),
    ("ast31", "The aurora", [
        "The northern and southern lights appear when charged particles from the Sun reach the Earth.",
        "The magnetic field of the Earth guides these particles toward the polar regions, where they collide with oxygen and nitrogen high in the atmosphere.",
        "Oxygen gives off green and red light, and nitrogen adds blue and purple.",
        "Displays are strongest a day or two after large eruptions on the Sun.",
        "Photographers in Norway, Finland and Canada often wait through long, cold nights for a good display.",
        "Modern phone cameras can reveal faint aurorae that look grey to the naked eye.",
    ], {"t007": 3, "q30": 0}),
    ("ast32", "Navigating by the stars", [
        "Before satellite positioning, sailors found their latitude by measuring how high the Pole Star or the noon Sun stood above the horizon.",
        "A sextant measures this angle precisely, and printed tables convert it into a position.",
        "Finding longitude at sea also needed an accurate clock, a problem that was solved only in the eighteenth century.",
    ], {"q30": "2:0,1", "q01": 0, "t006": 0}),
]
