"""Personal finance: compound interest, index funds, emergency funds (plus retirement, debt, credit)."""

TOPIC = "personal finance"

QUERIES = [
    ("q38", "how does compound interest work"),
    ("q39", "index funds vs actively managed funds"),
    ("q40", "how much should an emergency fund be"),
]

TRAIN = [
    ("t078", "paraphrase", "compound interest explained with an example"),
    ("t079", "paraphrase", "passive index investing compared with active fund managers"),
    ("t080", "related", "how much to save for retirement"),
    ("t081", "related", "paying off credit card debt with the avalanche or snowball method"),
    ("t082", "unlike", "how are credit scores calculated"),
    ("t083", "unlike", "how does inflation erode savings"),
    ("t084", "unlike", "is it better to rent or buy a home"),
]

DOCS = [
    ("fin01", "Compound interest", [
        "Compound interest means earning interest not only on your original deposit but also on the interest already earned.",
        "If you invest one thousand dollars at five percent a year, you have one thousand and fifty after the first year, and the next year's interest is calculated on the larger sum.",
        "Over time the balance grows faster and faster, following an exponential curve.",
        "After thirty years at that rate the original amount has more than quadrupled.",
    ], {"q38": "3:0,1,2,3", "t078": 3}),
    ("fin02", "The rule of 72", [
        "The rule of 72 is a quick way to estimate how long compounding takes to double money.",
        "Divide seventy two by the annual interest rate in percent, and the result is roughly the number of years needed.",
        "At six percent, money doubles in about twelve years; at nine percent, in about eight.",
        "The same rule shows how quickly debt at a high interest rate can grow.",
    ], {"q38": "3:0,1,2", "t078": 3}),
    ("fin03", "Starting early", [
        "Because of compound interest, time in the market matters more than the amount saved in any one year.",
        "Someone who invests two hundred dollars a month from age twenty five will usually end up with far more at retirement than someone who invests twice as much from age forty five.",
        "The early saver's money has decades longer to compound.",
        "This is why advisers urge young workers to start saving even small amounts.",
    ], {"q38": "3:0,1,2", "t078": 2, "t080": 2}),
    ("fin04", "Compounding frequency", [
        "Interest can be compounded yearly, monthly or even daily.",
        "The more often it is added, the sooner it starts earning interest itself, so the effective annual rate is slightly higher than the stated rate.",
        "Banks must quote the annual percentage yield, which includes this effect, making accounts easier to compare.",
        "The difference between monthly and daily compounding is tiny.",
    ], {"q38": "3:0,1,2", "t078": 2}),
    ("fin05", "Compound interest on debt", [
        "Compounding works against you when you borrow.",
        "Unpaid credit card interest is added to the balance and then charged interest itself, so a balance at twenty percent can double in under four years if nothing is paid.",
        "Making only the minimum payment keeps most of the debt compounding for a very long time.",
    ], {"q38": "3:0,1,2", "t081": 2}),
    ("fin06", "What an index fund is", [
        "An index fund is a mutual fund or exchange traded fund that simply holds all the stocks in a market index, such as the S&P 500, in the same proportions.",
        "It does not try to pick winners, so it needs no team of analysts and charges very low fees, often below a tenth of a percent a year.",
        "Its return closely matches the market it tracks.",
        "John Bogle launched the first index fund for ordinary investors in 1976.",
    ], {"q39": "3:0,1,2", "t079": 3}),
    ("fin07", "Active funds and their costs", [
        "Actively managed funds employ managers who choose stocks they expect to beat the market.",
        "Research, trading and marketing raise their annual fees, commonly to between half a percent and one and a half percent.",
        "Over long periods, most active funds fail to beat a comparable index fund after fees, and few of those that do keep it up.",
        "Picking the future winners in advance is very hard.",
        "Studies that follow funds over fifteen or twenty years find that only a small minority outperform, and it is hard to tell skill from luck.",
        "Funds that close after poor results disappear from the records, which makes the survivors look better than the average fund really was.",
    ], {"q39": "3:0,1,2,3,4,5", "t079": 3}),
    ("fin08", "Why fees matter", [
        "A difference in fees of one percent a year sounds small but compounds into a large sum.",
        "On a portfolio growing at seven percent for thirty years, paying one percent in fees leaves roughly a quarter less money at the end than paying almost nothing.",
        "Because fees are certain while extra returns are not, low cost is one of the most reliable advantages of index funds.",
    ], {"q39": "3:0,1,2", "t079": 3, "q38": "2:0"}),
    ("fin09", "When active management may help", [
        "Supporters of active funds argue that managers can avoid overvalued stocks and protect investors in downturns.",
        "In less efficient markets, such as small companies or some emerging markets, skilled managers may have a better chance of adding value.",
        "Evidence that they do so consistently is mixed.",
        "Many investors combine a core of index funds with a few active holdings.",
    ], {"q39": "3:0,1,2,3", "t079": 2}),
    ("fin10", "Exchange traded funds", [
        "Exchange traded funds, or ETFs, trade on a stock exchange throughout the day like shares.",
        "Most track an index, and they are often even cheaper and more tax efficient than traditional index mutual funds.",
        "Investors can buy broad market, bond, sector or international ETFs with a normal brokerage account.",
        "Some niche ETFs are actively managed or use leverage and carry higher risk.",
    ], {"q39": "2:0,1", "t079": 2}),
    ("fin11", "Diversification", [
        "Diversification means spreading money across many investments so that the failure of one does little damage.",
        "A broad index fund gives instant diversification across hundreds or thousands of companies.",
        "Holding bonds and international stocks as well reduces dependence on any single market.",
        "Diversification cannot remove the risk of a general market fall.",
    ], {"q39": 1, "t080": 0}),
    ("fin12", "Emergency fund basics", [
        "An emergency fund is money set aside for unexpected expenses such as a job loss, a medical bill or an urgent car repair.",
        "Most advisers recommend saving three to six months of essential living expenses.",
        "People with irregular income, a single household earner or an unstable job should aim nearer six months or more.",
        "Without such a cushion, a surprise bill often ends up on a credit card.",
    ], {"q40": "3:0,1,2,3", "q39": 0}),
    ("fin13", "Where to keep emergency savings", [
        "An emergency fund should be safe and quick to reach, not invested in stocks that might fall just when the money is needed.",
        "A high-yield savings account or money market account is the usual choice.",
        "Keeping it in a separate account from everyday spending makes it less tempting to dip into.",
        "Some savers keep a small amount of cash at home as well.",
    ], {"q40": "2:0,1,2"}),
    ("fin14", "Building the fund step by step", [
        "Saving several months of expenses can seem daunting, so start with a first target of about one thousand dollars or one month of costs.",
        "Set up an automatic transfer to savings on payday, so the money moves before you can spend it.",
        "Tax refunds, bonuses and gifts can speed up the process.",
        "Once the full target is reached, redirect the monthly amount to investing.",
    ], {"q40": "3:0,1,2"}),
    ("fin15", "Emergency fund or paying off debt", [
        "People with high-interest debt face a choice between saving and paying it down.",
        "A common approach is to build a small starter emergency fund first, then put every spare dollar toward the debt, and only then build the full three to six months of savings.",
        "Without any cushion, the next emergency simply adds to the debt.",
    ], {"q40": "3:1,2", "t081": 2}),
    ("fin16", "Budgeting with the 50/30/20 rule", [
        "The 50/30/20 rule is a simple budgeting guide.",
        "About half of take-home pay goes to needs such as housing, food and transport, thirty percent to wants, and twenty percent to savings and debt repayment.",
        "The savings share usually covers building an emergency fund first and then investing for retirement.",
        "The split can be adjusted where housing is expensive.",
    ], {"q40": "2:2", "t080": 1}),
    ("fin17", "Retirement savings targets", [
        "A common guideline is to save ten to fifteen percent of income for retirement throughout a working life.",
        "Another rule of thumb aims for savings of about ten times final salary by the age of sixty seven.",
        "The four percent rule suggests that withdrawing four percent of the portfolio in the first year of retirement, adjusted for inflation afterwards, has historically lasted about thirty years.",
    ], {"t080": 3, "q38": 0, "q39": 0}),
    ("fin18", "Employer matching", [
        "Many employers add money to a worker's retirement plan when the worker contributes, for example matching half of contributions up to six percent of salary.",
        "This match is an immediate and guaranteed return, so financial planners advise contributing at least enough to receive it in full.",
        "Tax advantages on these accounts add further benefit.",
    ], {"t080": 2}),
    ("fin19", "Avalanche and snowball", [
        "Two popular methods help pay off several debts.",
        "The avalanche method puts extra money toward the debt with the highest interest rate, which saves the most interest.",
        "The snowball method pays off the smallest balance first, giving quick wins that keep people motivated.",
        "In both methods, minimum payments are made on every other debt.",
    ], {"t081": 3, "q38": 0}),
    ("fin20", "Balance transfers", [
        "A balance transfer card lets borrowers move credit card debt to a new card with zero interest for an introductory period.",
        "It can save a lot of interest if the debt is paid off before the period ends, but there is usually a transfer fee of three to five percent.",
        "Spending on the new card or missing a payment can cancel the offer.",
    ], {"t081": 2}),
    ("fin21", "Credit scores", [
        "A credit score summarises how risky a borrower appears to lenders.",
        "The most widely used scores weigh payment history most heavily, followed by the share of available credit in use, the length of credit history, the mix of credit types and recent applications.",
        "Paying every bill on time and keeping card balances low are the surest ways to raise a score.",
    ], {"t082": 3, "t081": 1}),
    ("fin22", "Checking your credit report", [
        "Credit reports list your loans, cards, payment history and any defaults.",
        "Errors are common, so it is worth checking reports from each credit bureau at least once a year and disputing mistakes.",
        "A sudden unfamiliar account may be a sign of identity theft.",
        "Checking your own report does not lower your score.",
    ], {"t082": 2}),
    ("fin23", "Inflation and savings", [
        "Inflation is the general rise in prices over time, which reduces what each unit of money can buy.",
        "If a savings account pays two percent while prices rise four percent, the real value of the savings falls by about two percent a year.",
        "Over decades, even modest inflation halves the purchasing power of cash.",
        "Investments that tend to grow faster than inflation, such as shares, help preserve wealth in the long run.",
    ], {"t083": 3, "q38": 1, "q40": 0}),
    ("fin24", "Inflation-protected bonds", [
        "Some governments issue bonds whose principal rises with the consumer price index, such as Treasury Inflation-Protected Securities in the United States.",
        "They guarantee a real return above inflation if held to maturity.",
        "Their prices can still fall when interest rates rise.",
        "Many retirees hold them to protect spending power.",
    ], {"t083": 2, "q39": 0}),
    ("fin25", "Renting versus buying", [
        "Buying a home builds equity and fixes housing costs, but it brings large upfront costs, maintenance and less flexibility.",
        "Renting costs less to start and makes moving easy, and the money not spent on a deposit can be invested.",
        "A common comparison divides the price of a home by a year of rent; when this ratio is high, renting tends to be the better deal.",
        "Buying usually pays off only if you stay for at least five years.",
        "Local property taxes, insurance and expected price growth all change the answer, so online calculators that include them are useful.",
    ], {"t084": 3}),
    ("fin26", "Mortgages", [
        "A mortgage is a loan secured on a property, usually repaid over fifteen to thirty years.",
        "With a fixed-rate mortgage the payment stays the same, while a variable rate changes with market rates.",
        "In the early years most of each payment goes toward interest, and the share repaying the loan grows over time.",
        "A larger deposit usually earns a lower rate.",
    ], {"t084": 2, "q38": 1}),
    ("fin27", "Dollar cost averaging", [
        "Dollar cost averaging means investing a fixed amount at regular intervals, regardless of market prices.",
        "It buys more shares when prices are low and fewer when they are high, and it removes the temptation to time the market.",
        "Most people do this naturally through monthly contributions to a retirement account or an index fund.",
    ], {"q39": 1, "t080": 1}),
    ("fin28", "Market timing", [
        "Trying to jump in and out of the stock market to avoid falls rarely works.",
        "Many of the best days in the market come soon after the worst, and missing a handful of them can sharply cut long-term returns.",
        "Investors who stay invested through downturns usually do better than those who sell in panic.",
    ], {"q39": 1}),
    ("fin29", "Insurance as a safety net", [
        "Insurance protects against losses too large for an emergency fund to cover.",
        "Health, home, car and disability insurance move the cost of rare but severe events to an insurer in return for a premium.",
        "Choosing a higher deductible lowers the premium, which makes sense if you have savings to cover it.",
        "Life insurance matters most for people with dependants.",
    ], {"q40": "2:0,2"}),
    ("fin30", "Savings accounts and interest", [
        "A savings account pays interest on deposits, usually calculated daily and paid monthly.",
        "Online banks often offer higher rates than high street banks because they have lower costs.",
        "Deposits are protected up to a limit by government insurance schemes in many countries.",
        "Rates change with the central bank's policy rate.",
    ], {"q38": 1, "q40": 1}),
    ("fin31", "Funding a hobby", [
        "Expensive hobbies, from road cycling to astronomy, are easier to afford with a dedicated savings pot.",
        "Setting aside a small amount each month for new equipment avoids putting big purchases on a credit card.",
        "Buying quality second-hand gear and selling what you no longer use keeps costs down.",
        "Hobby spending belongs in the wants part of a budget rather than the savings part.",
    ], {"q40": 0, "q38": 0}),
    ("fin32", "Target date funds", [
        "A target date fund is a single fund that holds a mix of stock and bond index funds chosen for a particular retirement year.",
        "As that year approaches, it gradually shifts from stocks toward bonds to reduce risk.",
        "It is a popular default in workplace retirement plans because it requires no decisions from the saver.",
    ], {"t080": 2, "q39": 1}),
]
