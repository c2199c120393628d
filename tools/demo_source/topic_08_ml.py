"""Machine learning basics: overfitting, gradient descent, precision and recall."""

TOPIC = "machine learning"

QUERIES = [
    ("q26", "what is overfitting and how can it be prevented"),
    ("q27", "gradient descent learning rate"),
    ("q28", "difference between precision and recall"),
]

TRAIN = [
    ("t050", "paraphrase", "how to avoid overfitting a model"),
    ("t051", "paraphrase", "choosing the step size in gradient descent"),
    ("t052", "related", "k-fold cross validation"),
    ("t053", "related", "what is a confusion matrix"),
    ("t054", "unlike", "how does k-means clustering work"),
    ("t055", "unlike", "how do decision trees choose splits"),
    ("t056", "unlike", "what are word embeddings"),
]

DOCS = [
    ("ml01", "Overfitting", [
        "A model overfits when it learns the noise and quirks of its training data instead of the general pattern.",
        "Such a model scores very well on the examples it was trained on but poorly on new data.",
        "Overfitting is most likely when the model is very flexible compared with the amount of training data.",
        "A classic picture is a wiggly curve that passes through every training point but swings wildly between them.",
    ], {"q26": "3:0,1,2,3", "t050": 2}),
    ("ml02", "Spotting overfitting", [
        "The usual way to detect overfitting is to hold out part of the data as a validation set that the model never trains on.",
        "If training error keeps falling while validation error starts to rise, the model has begun to overfit.",
        "Plotting both errors against training time or model size makes the gap easy to see.",
    ], {"q26": "3:0,1", "t050": 2, "t052": 1}),
    ("ml03", "Regularisation", [
        "Regularisation prevents overfitting by penalising model complexity.",
        "L2 regularisation, also called weight decay or ridge, adds the sum of squared weights to the loss, pushing weights toward small values.",
        "L1 regularisation, or lasso, adds the sum of absolute weights and tends to set many weights exactly to zero.",
        "The strength of the penalty is a hyperparameter chosen on validation data.",
    ], {"q26": "3:0,1,2", "t050": 3}),
    ("ml04", "Dropout and early stopping", [
        "Neural networks have their own tools against overfitting.",
        "Dropout randomly switches off a fraction of the units at each training step, so the network cannot rely on any single feature.",
        "Early stopping halts training when validation loss stops improving and keeps the best checkpoint.",
        "Data augmentation, such as flipping and cropping images, enlarges the training set cheaply.",
    ], {"q26": "3:0,1,2,3", "t050": 3}),
    ("ml05", "The bias-variance trade-off", [
        "Prediction error can be split into bias, variance and irreducible noise.",
        "Simple models have high bias: they underfit and miss real structure.",
        "Very flexible models have high variance: their predictions change a lot with the particular training sample, which is overfitting.",
        "Good models balance the two, and more data lets us afford more flexibility.",
    ], {"q26": "2:2,3", "t050": 1}),
    ("ml06", "Underfitting", [
        "Underfitting is the opposite problem: the model is too simple to capture the pattern in the data.",
        "A straight line fitted to clearly curved data is a typical example.",
        "Both training and validation error stay high.",
        "Adding features, using a more flexible model or training longer can help, but each step raises the risk of overfitting.",
    ], {"q26": 1}),
    ("ml07", "Gradient descent", [
        "Gradient descent trains a model by repeatedly adjusting its parameters in the direction that reduces the loss most steeply.",
        "At each step it computes the gradient of the loss with respect to the parameters and moves a small distance against it.",
        "The size of that step is set by the learning rate.",
        "Training stops when the loss no longer improves.",
    ], {"q27": "3:0,1,2", "t051": 2}),
    ("ml08", "Choosing the learning rate", [
        "The learning rate is often the most important hyperparameter in training.",
        "If it is too small, gradient descent crawls and may need a huge number of steps.",
        "If it is too large, the updates overshoot the minimum, the loss bounces around, and training can diverge completely.",
        "A common practice is to try values spaced by factors of ten, such as 0.1, 0.01 and 0.001, and pick the one that lowers the loss fastest without instability.",
        "Learning rate finders train briefly while raising the rate step by step and plot the loss, so the largest stable value can be read from the curve.",
        "The best learning rate often depends on the batch size and on the optimiser used.",
    ], {"q27": "3:0,1,2,3,4,5", "t051": 3}),
    ("ml09", "Learning rate schedules", [
        "Many training runs change the learning rate over time.",
        "A short warm-up starts with a tiny rate and increases it, which stabilises the first steps of large networks.",
        "The rate is then decayed, for example with a cosine or step schedule, so that the model can settle into a good minimum.",
    ], {"q27": "3:0,1,2", "t051": 3}),
    ("ml10", "Stochastic and mini-batch gradient descent", [
        "Computing the gradient over the whole data set at every step is slow for large data.",
        "Stochastic gradient descent estimates it from one example, and mini-batch gradient descent from a small batch of examples, often thirty two to a few hundred.",
        "The noisy estimates make each step cheap and can even help escape poor regions of the loss surface.",
    ], {"q27": "2:1,2", "t051": 0}),
    ("ml11", "Adaptive optimisers", [
        "Optimisers such as Adam adapt the learning rate for each parameter based on the history of its gradients.",
        "Parameters with large, noisy gradients take smaller steps, and rarely updated ones take larger steps.",
        "Adam works well with default settings in many problems, though a global learning rate still has to be chosen.",
        "Momentum, which keeps a running average of past gradients, smooths the path toward the minimum.",
    ], {"q27": "2:0,2", "t051": 2}),
    ("ml12", "Local minima and saddle points", [
        "The loss surface of a neural network has many dips and flat regions.",
        "Gradient descent can get stuck in a poor local minimum or slow down near a saddle point where the gradient is nearly zero.",
        "In practice, large networks seem to have many good minima, and the noise of mini-batches helps move past saddle points.",
    ], {"q27": 1}),
    ("ml13", "Precision and recall", [
        "Precision and recall measure how well a classifier or search system finds the positive cases.",
        "Precision is the fraction of items predicted positive that really are positive.",
        "Recall is the fraction of all truly positive items that the system manages to find.",
        "A spam filter with high precision rarely flags good mail, while one with high recall lets little spam through.",
    ], {"q28": "3:0,1,2,3", "t053": 1, "q27": 0}),
    ("ml14", "The precision-recall trade-off", [
        "Most classifiers output a score, and a threshold turns it into a decision.",
        "Raising the threshold usually increases precision but lowers recall, since fewer items are flagged.",
        "Lowering it does the reverse.",
        "A precision-recall curve shows this trade-off across all thresholds, and the right balance depends on the costs of each kind of mistake.",
    ], {"q28": "3:1,2,3"}),
    ("ml15", "The F1 score", [
        "The F1 score combines precision and recall into a single number by taking their harmonic mean.",
        "It is high only when both are high; a model with perfect recall but poor precision still gets a low F1.",
        "The more general F-beta score weighs recall beta times as much as precision.",
        "F1 ignores true negatives, which makes it popular for imbalanced problems.",
    ], {"q28": "2:0,1"}),
    ("ml16", "Confusion matrix", [
        "A confusion matrix tabulates the predictions of a classifier against the true labels.",
        "For two classes it has four cells: true positives, false positives, false negatives and true negatives.",
        "Precision is true positives divided by all predicted positives, and recall is true positives divided by all actual positives.",
        "Reading the matrix shows which kinds of error a model makes.",
    ], {"t053": 3, "q28": "3:2"}),
    ("ml17", "Accuracy can mislead", [
        "Accuracy, the fraction of correct predictions, can be misleading when classes are imbalanced.",
        "If only one percent of transactions are fraud, a model that never flags fraud is ninety nine percent accurate and completely useless.",
        "In such cases precision, recall and the area under the precision-recall curve give a truer picture.",
    ], {"q28": "2:2", "t053": 1}),
    ("ml18", "Precision and recall in search", [
        "In information retrieval, precision at ten counts how many of the first ten results are relevant.",
        "Recall asks how many of all the relevant documents in the collection were retrieved at all.",
        "Web searchers mostly care about precision near the top, while patent searchers and legal reviewers need high recall.",
        "Graded measures such as nDCG also reward putting the most relevant documents first.",
    ], {"q28": "3:0,1,2"}),
    ("ml19", "Cross validation", [
        "K-fold cross validation splits the data into k equal parts.",
        "The model is trained k times, each time holding out a different part for validation, and the scores are averaged.",
        "This uses all the data for both training and validation and gives a more reliable estimate than a single split.",
        "Five and ten folds are common choices.",
    ], {"t052": 3, "q26": 0}),
    ("ml20", "Data leakage", [
        "Data leakage happens when information from the test data sneaks into training.",
        "Scaling features using statistics of the whole data set before splitting, or having the same customer in both sets, are common mistakes.",
        "Leakage makes a model look far better in evaluation than it will be in practice.",
        "Splitting the data first and fitting every preprocessing step on the training part alone prevents it.",
    ], {"t052": 1, "q26": 0}),
    ("ml21", "K-means clustering", [
        "K-means groups data points into k clusters without using labels.",
        "It starts with k random centres, assigns each point to the nearest centre, moves each centre to the mean of its points, and repeats until nothing changes.",
        "The result depends on the starting centres, so the algorithm is usually run several times.",
        "The number of clusters must be chosen in advance.",
        "It works well for compact, roughly round clusters of similar size but struggles with elongated or nested shapes.",
    ], {"t054": 3, "q27": 0}),
    ("ml22", "Choosing the number of clusters", [
        "The elbow method plots the within-cluster sum of squares against the number of clusters and looks for a bend where adding clusters stops helping much.",
        "The silhouette score measures how much closer each point is to its own cluster than to the next one.",
        "Neither method gives a definite answer, and domain knowledge often decides.",
    ], {"t054": 2}),
    ("ml23", "Decision trees", [
        "A decision tree predicts by asking a sequence of yes or no questions about the features.",
        "At each node, the training algorithm chooses the split that best separates the classes, usually measured by Gini impurity or information gain.",
        "Trees are easy to read but overfit easily if they grow too deep.",
        "Limiting the depth or pruning branches keeps them simpler.",
    ], {"t055": 3, "q26": "2:2,3"}),
    ("ml24", "Random forests", [
        "A random forest trains many decision trees on bootstrap samples of the data and lets them vote.",
        "Each split considers only a random subset of features, which makes the trees differ from one another.",
        "Averaging many varied trees reduces variance, so forests overfit far less than a single deep tree.",
    ], {"t055": 2, "q26": "2:2"}),
    ("ml25", "Word embeddings", [
        "Word embeddings represent each word as a dense vector of a few hundred numbers.",
        "Methods such as word2vec learn these vectors by predicting words from their neighbours in large amounts of text.",
        "Words used in similar contexts end up close together, so the vectors for coffee and tea are near each other.",
        "Sentence encoders extend the idea to whole sentences and passages.",
    ], {"t056": 3, "q27": 0}),
    ("ml26", "Neural search", [
        "Neural search engines encode queries and documents as vectors and retrieve the documents whose vectors are nearest to the query.",
        "Such dense retrieval can match synonyms and paraphrases that share no words with the query.",
        "Keyword methods such as BM25 remain strong baselines, and many systems combine both.",
        "A cross-encoder can then re-rank the top results more accurately.",
    ], {"t056": 1, "q28": 0}),
    ("ml27", "Feature scaling", [
        "Many algorithms work better when features are on similar scales.",
        "Standardisation subtracts the mean and divides by the standard deviation of each feature.",
        "Without scaling, gradient descent can zigzag slowly because the loss surface is stretched along some directions, and distance-based methods such as k-means are dominated by large features.",
    ], {"q27": "2:2", "t054": 1}),
    ("ml28", "Train, validation and test sets", [
        "Data is usually split into three parts.",
        "The training set fits the model, the validation set is used to choose hyperparameters and compare models, and the test set is touched only once at the end.",
        "Reusing the test set to make decisions slowly overfits to it, and the final score becomes too optimistic.",
    ], {"q26": "2:2", "t052": 2}),
    ("ml29", "Learning from bees", [
        "Some optimisation algorithms borrow ideas from nature.",
        "The artificial bee colony algorithm imitates how foraging honeybees share information about good food sources, sending more virtual bees to promising regions of the search space.",
        "Such methods need no gradients, but they are usually slower than gradient descent when gradients are available.",
    ], {"q27": 1, "q22": 0}),
    ("ml30", "Overfitting in finance models", [
        "Trading strategies are especially prone to overfitting.",
        "With enough parameters, a strategy can be tuned to look brilliant on historical prices and then lose money in live markets.",
        "Careful researchers test strategies on later periods they never looked at and count how many variants they tried.",
        "A simple rule with few parameters that holds up across many markets is usually more trustworthy than a complex one.",
    ], {"q26": "2:0,1,2", "q38": 0}),
    ("ml31", "Logistic regression", [
        "Logistic regression is a simple and widely used classifier.",
        "It computes a weighted sum of the features and passes it through the sigmoid function to produce a probability between zero and one.",
        "The weights are learned by minimising the log loss, usually with gradient descent or a related method.",
        "Its coefficients are easy to interpret.",
    ], {"q27": 1, "q28": 0}),
    ("ml32", "Batch size and learning rate", [
        "Batch size and learning rate interact.",
        "Larger batches give less noisy gradients, so they often allow a larger learning rate; a rule of thumb scales the rate in proportion to the batch size.",
        "Very large batches can generalise slightly worse unless the schedule is tuned carefully.",
        "Memory on the accelerator usually limits the batch size.",
    ], {"q27": "3:0,1", "t051": 2}),
]
