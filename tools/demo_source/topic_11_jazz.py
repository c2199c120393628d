"""Jazz: bebop, swing rhythm, modal jazz and Kind of Blue (plus cool jazz, standards, saxophone)."""

TOPIC = "jazz"

QUERIES = [
    ("q35", "origins of bebop"),
    ("q36", "what makes jazz swing rhythm feel"),
    ("q37", "Miles Davis Kind of Blue modal jazz"),
]

TRAIN = [
    ("t071", "paraphrase", "how bebop developed in the 1940s"),
    ("t072", "paraphrase", "modal jazz and the album Kind of Blue"),
    ("t073", "related", "what is cool jazz"),
    ("t074", "related", "the ii V I chord progression in jazz standards"),
    ("t075", "unlike", "who invented the saxophone"),
    ("t076", "unlike", "New Orleans brass bands and second line parades"),
    ("t077", "unlike", "how to start learning jazz improvisation"),
]

DOCS = [
    ("jaz01", "The birth of bebop", [
        "Bebop grew out of late night jam sessions in Harlem clubs such as Minton's Playhouse in the early 1940s.",
        "Young musicians including Charlie Parker, Dizzy Gillespie and Thelonious Monk experimented with fast tempos, complex harmonies and long, twisting melodic lines.",
        "They played for listeners and for each other rather than for dancers.",
        "By the end of the war bebop had become the new language of modern jazz.",
    ], {"q35": "3:0,1,2,3", "t071": 3}),
    ("jaz02", "Why bebop broke with swing", [
        "Many bebop pioneers had played in big swing bands, where arrangements left little room for solos.",
        "Small groups gave them freedom to improvise at length over the chords of popular songs.",
        "A recording ban during the musicians' union strike of 1942 to 1944 meant that the early development of the style was barely documented.",
        "When the records appeared, bebop seemed to arrive fully formed.",
    ], {"q35": "3:0,1,2,3", "t071": 3}),
    ("jaz03", "Charlie Parker", [
        "Alto saxophonist Charlie Parker, nicknamed Bird, was the central figure of bebop.",
        "Growing up in Kansas City, he absorbed the blues and the riff-based swing of local bands before moving to New York.",
        "He later said that he discovered his sound while playing the upper intervals of chords as a melody.",
        "His recordings for Savoy and Dial set the standard for jazz improvisation.",
    ], {"q35": "2:0,2", "t071": 2, "t075": 0}),
    ("jaz04", "Bebop harmony", [
        "Bebop musicians often wrote new melodies over the chord changes of existing songs, a practice called contrafact.",
        "Charlie Parker's Ornithology, for example, is built on the chords of How High the Moon.",
        "They added extended and altered chords, flattened fifths and quick substitute chords, making the harmony far denser than in swing.",
    ], {"q35": "2:0,2", "t071": 2, "t074": 1}),
    ("jaz05", "Dizzy Gillespie", [
        "Trumpeter Dizzy Gillespie combined dazzling technique with a gift for teaching and showmanship.",
        "He helped codify the harmonic ideas of bebop and led a big band that brought the style to larger audiences.",
        "In the late 1940s he worked with Cuban percussionist Chano Pozo and helped create Afro-Cuban jazz.",
        "His bent trumpet became his trademark.",
    ], {"q35": "2:0,1", "t071": 2}),
    ("jaz06", "Swing feel", [
        "Swing is the rhythmic feel that makes jazz move.",
        "Pairs of eighth notes are not played evenly but with the first note longer than the second, roughly in a long-short pattern.",
        "The exact ratio changes with tempo, becoming more even at fast speeds.",
        "Equally important are accents on the second and fourth beats and a relaxed forward push that is hard to write down.",
    ], {"q36": "3:0,1,2,3"}),
    ("jaz07", "The rhythm section", [
        "In most jazz groups, swing is driven by the rhythm section.",
        "The bass walks a steady line of quarter notes, the drummer keeps time on the ride cymbal and the hi-hat closing on beats two and four, and the piano or guitar comps chords around them.",
        "When these players lock together, the whole band swings.",
        "Musicians talk of playing on top of the beat or laying back behind it.",
    ], {"q36": "3:1,2,3", "t074": 0}),
    ("jaz08", "The swing era", [
        "The swing era, from about 1935 to 1945, was the period when jazz was America's popular music.",
        "Big bands led by Benny Goodman, Count Basie and Duke Ellington played for dancers in huge ballrooms.",
        "Arrangements set sections of brass and saxophones against each other in call and response.",
        "The name of the era came from the rhythmic feel of its music.",
    ], {"q36": 1, "q35": 1, "t071": 1}),
    ("jaz09", "Measuring swing", [
        "Researchers have measured swing by analysing recordings note by note.",
        "Soloists often play their eighth notes more evenly than the drummer plays the ride cymbal pattern and place them slightly behind the beat.",
        "This small timing tension between players seems to be part of what listeners feel as swing.",
        "Computer-generated music with perfectly even timing tends to sound stiff by comparison.",
    ], {"q36": "3:1,2"}),
    ("jaz10", "Kind of Blue", [
        "Kind of Blue, recorded by Miles Davis in 1959, is the best-selling jazz album of all time.",
        "The sextet included John Coltrane, Cannonball Adderley and pianist Bill Evans.",
        "Davis gave the musicians only sketches of scales and melodies, and most tunes were recorded in a single take.",
        "Its calm, spacious sound introduced many listeners to modal jazz.",
        "The album was recorded in two sessions at Columbia's studio in New York, in March and April of that year.",
        "Decades later it still appears at the top of lists of the greatest jazz records and sells steadily every year.",
    ], {"q37": "3:0,2,3", "t072": 3}),
    ("jaz11", "What modal jazz is", [
        "In modal jazz, improvisation is based on scales, or modes, rather than on a fast sequence of chord changes.",
        "A tune may stay on one mode for many bars, giving soloists space to develop melodies.",
        "So What from Kind of Blue spends sixteen bars in the Dorian mode on D, moves up a half step for eight bars, and then returns.",
        "The approach was a deliberate reaction to the dense harmony of bebop.",
    ], {"q37": "3:0,1,2,3", "t072": 3, "q35": 1}),
    ("jaz12", "Bill Evans and Kind of Blue", [
        "Pianist Bill Evans brought a quiet, impressionistic touch to Kind of Blue.",
        "He wrote the liner notes, comparing the music to Japanese painting in which the artist must paint spontaneously without correction.",
        "Blue in Green, credited to Davis, is widely believed to have been largely written by Evans.",
        "His voicings shaped how pianists play modal tunes.",
    ], {"q37": "2:0,1,2", "t072": 2}),
    ("jaz13", "Milestones and the road to modal jazz", [
        "Miles Davis had tried modal ideas a year before Kind of Blue on the title track of Milestones.",
        "He was influenced by George Russell's theory of the Lydian chromatic concept.",
        "After 1959, John Coltrane pushed modal playing further on albums such as A Love Supreme, with long, intense solos over a drone-like bass.",
    ], {"q37": "3:0,1,2", "t072": 3}),
    ("jaz14", "Miles Davis's many styles", [
        "Miles Davis changed direction several times in his career.",
        "He played bebop with Charlie Parker, led the Birth of the Cool sessions, recorded Kind of Blue, and later moved into jazz-rock fusion with Bitches Brew in 1970.",
        "Each change drew criticism from some fans and opened new paths for others.",
    ], {"q37": 1, "q35": 1, "t073": 1}),
    ("jaz15", "Cool jazz", [
        "Cool jazz arose in the late 1940s and 1950s as a softer, more restrained answer to bebop.",
        "The Birth of the Cool sessions led by Miles Davis used unusual instruments such as the French horn and tuba with light, arranged textures.",
        "On the West Coast, players such as Chet Baker, Gerry Mulligan and Dave Brubeck made the style popular.",
        "Brubeck's Take Five, in five four time, became a hit.",
    ], {"t073": 3, "q35": 0, "q37": 0}),
    ("jaz16", "Hard bop", [
        "Hard bop emerged in the mid 1950s, mixing bebop with gospel and blues.",
        "Art Blakey's Jazz Messengers and Horace Silver's quintet played earthy, driving music that was more accessible than bebop.",
        "The Blue Note label recorded many hard bop classics.",
        "Many stars of later decades served an apprenticeship in Blakey's band.",
    ], {"q35": 0, "t073": 1}),
    ("jaz17", "The ii V I progression", [
        "The most common chord sequence in jazz standards is the two five one.",
        "In the key of C it runs from D minor seven to G seven to C major seven, each chord pulling strongly toward the next.",
        "Tunes such as Autumn Leaves are built from chains of these progressions, and learning to improvise over them is a basic step.",
    ], {"t074": 3, "t077": 2}),
    ("jaz18", "The Great American Songbook", [
        "Many jazz standards come from Broadway shows and films of the 1920s to the 1950s by composers such as Gershwin, Porter and Kern.",
        "Jazz musicians reharmonised and reinterpreted these songs, and players everywhere learn them from lead sheets in collections called fake books.",
        "Knowing the standards lets strangers play together at a jam session.",
    ], {"t074": 1, "t077": 1}),
    ("jaz19", "Adolphe Sax", [
        "The saxophone was invented by the Belgian instrument maker Adolphe Sax in the early 1840s and patented in 1846.",
        "He wanted an instrument that combined the power of brass with the agility of woodwinds, and although it is made of brass it uses a single reed like a clarinet.",
        "It was first used in military bands and only later became the voice of jazz.",
        "Sax also designed a family of brass instruments called saxhorns and spent much of his life in legal battles over his patents.",
    ], {"t075": 3}),
    ("jaz20", "Saxophones in jazz", [
        "Coleman Hawkins established the tenor saxophone as a solo instrument with Body and Soul in 1939.",
        "Lester Young offered a lighter, floating alternative that influenced cool jazz.",
        "Later, Charlie Parker on alto and John Coltrane on tenor and soprano expanded what the instrument could do.",
        "Sonny Rollins became famous for long, thematic solos.",
    ], {"t075": 1, "q35": 0}),
    ("jaz21", "Brass bands of New Orleans", [
        "New Orleans brass bands play at parades, parties and funerals.",
        "In a jazz funeral, the band plays slow hymns on the way to the cemetery and bursts into joyful music on the way back.",
        "Dancers and neighbours who follow the band form the second line, strutting and waving handkerchiefs and umbrellas.",
        "Modern bands such as the Rebirth Brass Band mix the tradition with funk and hip hop.",
    ], {"t076": 3, "q36": 0}),
    ("jaz22", "Early New Orleans jazz", [
        "Jazz took shape in New Orleans around 1900, blending blues, ragtime, brass band marches and Caribbean rhythms.",
        "Cornetist Buddy Bolden is often named as the first jazz bandleader, though no recordings of him survive.",
        "Louis Armstrong carried the style north to Chicago in the 1920s and made the improvised solo the centre of jazz.",
    ], {"t076": 2, "q35": 0, "q36": 1}),
    ("jaz23", "Learning to improvise", [
        "Beginners learn to improvise by listening closely to recordings and copying solos by ear, a practice called transcribing.",
        "Practising scales and arpeggios over the chords of a simple blues helps the fingers find the right notes.",
        "Playing along with backing tracks and attending jam sessions builds confidence.",
        "Teachers stress that good improvising starts with singing a phrase in your head.",
    ], {"t077": 3, "q36": 0}),
    ("jaz24", "The twelve bar blues", [
        "The twelve bar blues is a chord pattern of twelve measures that underlies countless jazz, blues and rock songs.",
        "In its simplest form it uses the first, fourth and fifth chords of the key.",
        "Jazz musicians decorate it with many passing chords, and bebop players wrote intricate blues heads such as Parker's Blues for Alice.",
    ], {"t077": 2, "q35": 0, "t074": 1}),
    ("jaz25", "Free jazz", [
        "In the late 1950s Ornette Coleman began playing without fixed chord changes, letting melodies lead the group wherever they went.",
        "His 1960 album Free Jazz gave the movement its name.",
        "Cecil Taylor and later Albert Ayler pushed toward dense, energetic collective improvisation.",
        "Many listeners found it difficult, but it opened jazz to new forms.",
    ], {"q37": 0, "q35": 0}),
    ("jaz26", "Drummers and swing", [
        "Jo Jones of the Count Basie band moved the basic timekeeping from the bass drum to the hi-hat, giving swing a lighter, airier feel.",
        "Kenny Clarke then shifted it to the ride cymbal and used the bass drum for sudden accents, which became the bebop style of drumming.",
        "These changes freed the rhythm section to react to soloists.",
    ], {"q36": "3:0,1", "q35": "2:1"}),
    ("jaz27", "Jazz in coffee houses", [
        "In the 1950s small jazz groups found a new audience in the coffee houses of Greenwich Village and San Francisco.",
        "These venues served espresso instead of alcohol, so younger listeners could attend.",
        "Poets read their work between sets, and the mix of jazz and verse became part of Beat culture.",
    ], {"q35": 0, "q15": 0}),
    ("jaz28", "Vocal jazz", [
        "Singers such as Billie Holiday, Ella Fitzgerald and Sarah Vaughan brought jazz phrasing to popular songs.",
        "Holiday bent melodies and placed words behind the beat with great emotional effect.",
        "Fitzgerald was famous for scat singing, improvising with nonsense syllables as if her voice were a horn, and she absorbed bebop ideas into her solos.",
    ], {"q36": 1, "q35": 0}),
    ("jaz29", "Latin jazz rhythms", [
        "Latin jazz combines jazz harmony and improvisation with Afro-Cuban and Brazilian rhythms.",
        "Instead of the swung eighth notes of jazz, the music is built on even eighths and patterns such as the clave.",
        "In the 1960s bossa nova from Brazil, with its soft, syncopated guitar, became popular through albums such as Getz and Gilberto.",
    ], {"q36": 1, "t073": 0}),
    ("jaz30", "Duke Ellington", [
        "Duke Ellington led his orchestra for nearly fifty years and wrote well over a thousand compositions.",
        "He wrote parts for the particular sounds of his players, such as the growling trumpet of Bubber Miley.",
        "His band was one of the great ensembles of the swing era, and pieces like It Don't Mean a Thing helped give the era its catchword.",
    ], {"q36": 1, "q35": 0}),
    ("jaz31", "Thelonious Monk", [
        "Pianist Thelonious Monk was a house musician at Minton's Playhouse during the birth of bebop.",
        "His compositions, such as Round Midnight and Straight No Chaser, use odd intervals, sudden silences and angular rhythms.",
        "For years he was considered eccentric, and recognition came only in the late 1950s.",
        "Today his tunes are among the most played standards.",
    ], {"q35": "2:0", "t071": 2, "t074": 0}),
    ("jaz32", "Jazz education", [
        "Jazz is now taught at many universities and conservatories.",
        "Students learn theory, ensemble playing and the history of styles from New Orleans to fusion, often studying modal tunes from Kind of Blue early on.",
        "Critics argue that school training can make players sound alike, while supporters point to the high technical level of young musicians.",
    ], {"t077": 2, "q37": 1}),
]
